'use server';

import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import type { FormState } from '@/app/components/form-state';
import { requireSignedIn } from '@/lib/server/auth/session';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { changeOwnPassword } from '@/lib/server/users';

/**
 * The forced change of a generated or admin-set password. The only action a
 * session with a pending change may run (besides signing out); afterwards
 * the user goes on to the start page.
 */
export const replacePasswordAction = withOutageState(async function replacePasswordAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const { user } = await requireSignedIn();
  const newPassword = form.get('newPassword');
  if (newPassword !== form.get('confirmPassword')) {
    return {
      status: 'error',
      code: 'password_mismatch',
      message: 'The two new passwords differ.',
      fields: {
        confirmPassword: { code: 'password_mismatch', message: 'Type the same password twice.' },
      },
    };
  }
  try {
    await changeOwnPassword(user, { currentPassword: form.get('currentPassword'), newPassword });
  } catch (err) {
    return actionErrorState(err);
  }
  // The root layout was rendered without the app's header while the change
  // was pending: render it again with the navigation.
  revalidatePath('/', 'layout');
  redirect('/');
});
