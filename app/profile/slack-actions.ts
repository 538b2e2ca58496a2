'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { requestSlackLink } from '@/lib/server/slack/link';
import { unlinkOwnSlack } from '@/lib/server/slack/link-admin';

/** Sends the confirmation DM; the link exists only once the Slack member presses it. */
export const requestSlackLinkAction = withOutageState(async function requestSlackLinkAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser();
  const value = String(form.get('slackUserId') ?? '');
  try {
    const { slackUserId } = await requestSlackLink(await db(), actor, value);
    revalidatePath('/profile');
    return {
      status: 'ok',
      code: 'slack_link_requested',
      message: `Sent a confirmation to ${slackUserId} in Slack. Press "This is me" there within 15 minutes to finish.`,
      values: { slackUserId },
    };
  } catch (err) {
    return actionErrorState(err, { slackUserId: value });
  }
});

/** Removes the user's own link, confirmed or pending. */
export const unlinkSlackAction = withOutageState(async function unlinkSlackAction(
  _prev: FormState,
  _form: FormData,
): Promise<FormState> {
  const actor = await requireUser();
  try {
    const had = await unlinkOwnSlack(await db(), actor);
    revalidatePath('/profile');
    return had
      ? { status: 'ok', code: 'slack_unlinked', message: 'Slack link removed.' }
      : { status: 'ok', code: 'slack_not_linked', message: 'There was no Slack link.' };
  } catch (err) {
    return actionErrorState(err);
  }
});
