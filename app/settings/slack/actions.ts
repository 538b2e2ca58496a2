'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { revokeSlackLink } from '@/lib/server/slack/link-admin';
import {
  destinationForHost,
  readGlobalSlackSettings,
  resolveDestination,
  saveGlobalSlackSettings,
  saveHostSlackSettings,
  savedDestinationMessage,
} from '@/lib/server/slack/settings';
import { saveSlackTeamId } from '@/lib/server/slack/team';

// Admin-only, checked here again: a hidden link is not a permission.

function input(form: FormData) {
  return {
    channel: String(form.get('channel') ?? ''),
    webhookUrl: String(form.get('webhookUrl') ?? ''),
    clearWebhook: form.get('clearWebhook') === 'on',
  };
}

/** Saves the global destination (no hostId) or one host's override. */
export const saveSlackSettingsAction = withOutageState(async function saveSlackSettingsAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  const hostId = String(form.get('hostId') ?? '');
  const values = { channel: String(form.get('channel') ?? '') };
  let saved: ReturnType<typeof savedDestinationMessage>;
  try {
    const prisma = await db();
    const given = input(form);
    if (hostId) await saveHostSlackSettings(prisma, hostId, given, admin.id);
    else await saveGlobalSlackSettings(prisma, given, admin.id);
    // Where tickets now go, said plainly (a channel without a bot token posts nothing).
    const dest = hostId
      ? await destinationForHost(prisma, hostId)
      : resolveDestination(
          { slackChannel: null, slackWebhookUrl: null },
          await readGlobalSlackSettings(prisma),
        );
    saved = savedDestinationMessage(dest, given.channel.trim() !== '');
  } catch (err) {
    return actionErrorState(err, values);
  }
  revalidatePath('/settings/slack');
  return {
    status: 'ok',
    code: saved.posting ? 'saved' : 'saved_not_posting',
    message: saved.message,
  };
});

/** The workspace whose interactions count; blank forgets it (learned again from the bot token). */
export const saveSlackTeamAction = withOutageState(async function saveSlackTeamAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  const raw = String(form.get('teamId') ?? '');
  try {
    const team = await saveSlackTeamId(await db(), raw, admin.id);
    revalidatePath('/settings/slack');
    return team
      ? { status: 'ok', code: 'saved', message: `Only interactions from ${team.teamId} count.` }
      : {
          status: 'ok',
          code: 'cleared',
          message: 'Cleared: learned again from the bot token at the next interaction.',
        };
  } catch (err) {
    return actionErrorState(err, { teamId: raw });
  }
});

/** Revokes a user's Slack link, confirmed or pending. */
export const revokeSlackLinkAction = withOutageState(async function revokeSlackLinkAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  try {
    const had = await revokeSlackLink(await db(), admin, String(form.get('userId') ?? ''));
    revalidatePath('/settings/slack');
    return had
      ? { status: 'ok', code: 'revoked', message: 'Revoked.' }
      : { status: 'ok', code: 'not_linked', message: 'That link was already gone.' };
  } catch (err) {
    return actionErrorState(err);
  }
});
