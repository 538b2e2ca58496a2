'use server';

import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import type { FormState } from '@/app/components/form-state';
import { requireArea } from '@/lib/server/auth/session';
import {
  archiveHost,
  createHost,
  issueApiKey,
  restoreHost,
  revokeApiKey,
  updateHost,
} from '@/lib/server/hosts';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';

// Each action re-checks the area here, and the service checks the admin
// role again against the database: a hidden button is not a permission.

/** A key form's state: the new key travels back once, in this answer only. */
export type IssueKeyState = FormState & { key?: string; keyName?: string };

function hostInput(form: FormData) {
  return {
    name: form.get('name') ?? undefined,
    description: form.get('description') ?? undefined,
    defaultTimeoutMs: form.get('defaultTimeout') ?? undefined,
    maxTimeoutMs: form.get('maxTimeout') ?? undefined,
    redactionPaths: form.get('redactionPaths') ?? undefined,
  };
}

function values(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['name', 'description', 'defaultTimeout', 'maxTimeout', 'redactionPaths']) {
    const v = form.get(k);
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

export const createHostAction = withOutageState(async function createHostAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  let hostId: string;
  try {
    hostId = (await createHost(hostInput(form), actor.id)).id;
  } catch (err) {
    return actionErrorState(err, values(form));
  }
  revalidatePath('/hosts');
  redirect(`/hosts/${hostId}?created=1`);
});

export const updateHostAction = withOutageState(async function updateHostAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  try {
    await updateHost(hostId, hostInput(form), actor.id);
    revalidatePath('/hosts');
    revalidatePath(`/hosts/${hostId}`);
    return { status: 'ok', code: 'host_saved', message: 'Settings saved.' };
  } catch (err) {
    return actionErrorState(err, values(form));
  }
});

export const setArchivedAction = withOutageState(async function setArchivedAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  const archive = form.get('archive') === 'true';
  try {
    await (archive ? archiveHost : restoreHost)(hostId, actor.id);
    revalidatePath('/hosts');
    revalidatePath(`/hosts/${hostId}`);
    return archive
      ? { status: 'ok', code: 'host_archived', message: 'Archived: its keys stopped working.' }
      : {
          status: 'ok',
          code: 'host_restored',
          message: 'Restored: its unrevoked keys work again.',
        };
  } catch (err) {
    return actionErrorState(err);
  }
});

export const issueKeyAction = withOutageState(async function issueKeyAction(
  _prev: IssueKeyState,
  form: FormData,
): Promise<IssueKeyState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  try {
    const { key, apiKey } = await issueApiKey(hostId, form.get('name'), actor.id);
    revalidatePath(`/hosts/${hostId}`);
    revalidatePath('/hosts');
    return {
      status: 'ok',
      code: 'api_key_issued',
      message: 'Key created.',
      key,
      keyName: apiKey.name,
    };
  } catch (err) {
    return actionErrorState(err, { name: String(form.get('name') ?? '') });
  }
});

export const revokeKeyAction = withOutageState(async function revokeKeyAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const apiKeyId = String(form.get('apiKeyId') ?? '');
  try {
    const apiKey = await revokeApiKey(apiKeyId, actor.id);
    revalidatePath(`/hosts/${apiKey.hostId}`);
    revalidatePath('/hosts');
    return { status: 'ok', code: 'api_key_revoked', message: `Revoked ${apiKey.name}.` };
  } catch (err) {
    return actionErrorState(err);
  }
});
