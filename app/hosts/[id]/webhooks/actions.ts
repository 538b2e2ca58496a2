'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireArea } from '@/lib/server/auth/session';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { redeliver } from '@/lib/server/webhooks/deliveries';
import type { AppError } from '@/lib/server/http/api-error';
import {
  deleteWebhook,
  rotateWebhookSecret,
  saveWebhook,
  selfTestResolver,
  setWebhookEnabled,
} from '@/lib/server/webhooks/webhooks';

// Each action re-checks the area; the services check the admin role again
// against the database, in the transaction of the change.

/** A form's state; a new signing secret travels back once, in this answer only. */
export type WebhookFormState = FormState & { secret?: string };

/** URL problems belong next to the URL input. */
const urlField = (err: AppError) =>
  err.code.startsWith('webhook_url') || err.code === 'webhook_dns_failed' ? 'url' : null;

function fail(err: unknown, values?: Record<string, string>): WebhookFormState {
  return actionErrorState(err, values, { fieldOf: urlField });
}

function refresh(hostId: string) {
  revalidatePath(`/hosts/${hostId}`);
  revalidatePath(`/hosts/${hostId}/webhooks`);
  revalidatePath(`/hosts/${hostId}/webhooks/deliveries`);
}

export const saveWebhookAction = withOutageState(async function saveWebhookAction(
  _prev: WebhookFormState,
  form: FormData,
): Promise<WebhookFormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  const kind = String(form.get('kind') ?? '');
  const url = String(form.get('url') ?? '');
  const timeout = String(form.get('timeoutMs') ?? '').trim();
  try {
    const r = await saveWebhook(
      { hostId, kind, url, timeoutMs: timeout ? Number(timeout) : undefined },
      actor.id,
    );
    refresh(hostId);
    if (r.selfTest && !r.selfTest.ok) {
      return {
        status: 'error',
        code: 'webhook_self_test_failed',
        message: r.selfTest.echoOk
          ? 'Saved, but the resolver failed its self-test: it stays disabled.'
          : 'Saved, but the resolver does not echo the context identity: it stays disabled.',
        secret: r.secret,
      };
    }
    return { status: 'ok', code: 'webhook_saved', message: 'Webhook saved.', secret: r.secret };
  } catch (err) {
    return fail(err, { url, timeoutMs: timeout });
  }
});

export const rotateSecretAction = withOutageState(async function rotateSecretAction(
  _prev: WebhookFormState,
  form: FormData,
): Promise<WebhookFormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  const hours = Number(form.get('overlapHours') ?? 24);
  try {
    const secret = await rotateWebhookSecret(
      hostId,
      String(form.get('kind') ?? ''),
      actor.id,
      Math.round(hours * 3_600_000),
    );
    refresh(hostId);
    return { status: 'ok', code: 'secret_rotated', message: 'New secret created.', secret };
  } catch (err) {
    return fail(err);
  }
});

export const selfTestAction = withOutageState(async function selfTestAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  try {
    const r = await selfTestResolver(hostId, actor.id);
    refresh(hostId);
    return r.ok
      ? { status: 'ok', code: 'self_test_passed', message: 'Self-test passed.' }
      : { status: 'error', code: 'webhook_self_test_failed', message: 'Self-test failed.' };
  } catch (err) {
    return fail(err);
  }
});

export const setEnabledAction = withOutageState(async function setEnabledAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  const enable = form.get('enable') === 'true';
  try {
    await setWebhookEnabled(hostId, String(form.get('kind') ?? ''), enable, actor.id);
    refresh(hostId);
    return {
      status: 'ok',
      code: enable ? 'webhook_enabled' : 'webhook_disabled',
      message: enable ? 'Enabled.' : 'Disabled.',
    };
  } catch (err) {
    refresh(hostId);
    return fail(err);
  }
});

export const deleteWebhookAction = withOutageState(async function deleteWebhookAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  try {
    await deleteWebhook(hostId, String(form.get('kind') ?? ''), actor.id);
    refresh(hostId);
    return { status: 'ok', code: 'webhook_deleted', message: 'Webhook removed.' };
  } catch (err) {
    return fail(err);
  }
});

export const redeliverAction = withOutageState(async function redeliverAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  await requireArea('hosts');
  const hostId = String(form.get('hostId') ?? '');
  try {
    await redeliver(hostId, String(form.get('deliveryId') ?? ''));
    refresh(hostId);
    return { status: 'ok', code: 'redelivery_queued', message: 'Queued.' };
  } catch (err) {
    return fail(err);
  }
});
