'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState } from '@/lib/server/http/action-state';
import { saveGlobalSlackSettings, saveHostSlackSettings } from '@/lib/server/slack/settings';

// Admin-only, checked here again: a hidden link is not a permission.

function input(form: FormData) {
  return {
    channel: String(form.get('channel') ?? ''),
    webhookUrl: String(form.get('webhookUrl') ?? ''),
    clearWebhook: form.get('clearWebhook') === 'on',
  };
}

/** Saves the global destination (no hostId) or one host's override. */
export async function saveSlackSettingsAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  const hostId = String(form.get('hostId') ?? '');
  const values = { channel: String(form.get('channel') ?? '') };
  try {
    const prisma = await db();
    if (hostId) await saveHostSlackSettings(prisma, hostId, input(form), admin.id);
    else await saveGlobalSlackSettings(prisma, input(form), admin.id);
  } catch (err) {
    return actionErrorState(err, values);
  }
  revalidatePath('/settings/slack');
  return {
    status: 'ok',
    code: 'saved',
    message: 'Saved. New tickets go to the destination shown.',
  };
}
