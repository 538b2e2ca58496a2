'use server';

import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { changeOwnPassword } from '@/lib/server/users';

export const changePasswordAction = withOutageState(async function changePasswordAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser();
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
    await changeOwnPassword(actor, { currentPassword: form.get('currentPassword'), newPassword });
    return { status: 'ok', code: 'password_changed', message: 'Password changed.' };
  } catch (err) {
    return actionErrorState(err);
  }
});
