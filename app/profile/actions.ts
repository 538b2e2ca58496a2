'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { actionErrorState } from '@/lib/server/http/action-state';
import { changeOwnPassword, setOwnSlackUserId } from '@/lib/server/users';

export async function changePasswordAction(_prev: FormState, form: FormData): Promise<FormState> {
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
}

export async function linkSlackAction(_prev: FormState, form: FormData): Promise<FormState> {
  const actor = await requireUser();
  const value = String(form.get('slackUserId') ?? '');
  try {
    const user = await setOwnSlackUserId(actor, value);
    revalidatePath('/profile');
    return user.slackUserId
      ? {
          status: 'ok',
          code: 'slack_linked',
          message: `Linked Slack user ${user.slackUserId}.`,
          values: { slackUserId: user.slackUserId },
        }
      : {
          status: 'ok',
          code: 'slack_unlinked',
          message: 'Slack link removed.',
          values: { slackUserId: '' },
        };
  } catch (err) {
    return actionErrorState(err, { slackUserId: value });
  }
}
