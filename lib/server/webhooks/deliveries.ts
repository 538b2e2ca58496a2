import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { isUuid } from '../hosts/admin-actor';
import { moduleLogger } from '../logger';
import { nudgeRelay } from '../queue/outbox';
import { enqueueAttempt, recordAttempt } from './attempts';
import { WebhookError } from './errors';
import type { HostSlots } from './host-slots';
import { receiptOrNull } from '../receipts';
import { callbackMessageId, callbackPayload, RESOLVED_EVENT } from './payload';
import { maxAttempts } from './policy';
import { attemptErrorText, postSigned } from './post-signed';

const log = moduleLogger('webhooks');

/** The error of an attempt whose worker stopped between sending and recording it. */
export const WORKER_STOPPED_ERROR =
  'worker_stopped_during_call: the worker stopped before recording the answer; the receiver may have this delivery';

/** Callbacks get at most this long per attempt, whatever the row says. */
export const CALLBACK_TIMEOUT_MS = 5_000;

/**
 * For a settled ticket, the host's callback delivery: one WebhookDelivery per
 * ticket + webhook (its messageId is deterministic, so a rerun finds the
 * same row) and the outbox row of its first attempt, in one transaction.
 * Returns the delivery id, or null when the host has no callback webhook.
 */
export async function createCallbackDelivery(ticketId: string): Promise<string | null> {
  const prisma = await db();
  const ticket = await prisma.approvalTicket.findUnique({
    where: { id: ticketId },
    select: {
      id: true,
      hostId: true,
      requestId: true,
      contextIdentity: true,
      status: true,
      decidedAt: true,
      resolution: true,
    },
  });
  if (!ticket || ticket.status === 'pending') return null;
  const hook = await prisma.webhook.findUnique({
    where: { hostId_kind: { hostId: ticket.hostId, kind: 'callback' } },
    select: { id: true, enabled: true },
  });
  if (!hook) return null;
  const messageId = callbackMessageId(hook.id, ticket.id);
  // Issue 13: the receipt rides with the resolution (issued here if missing).
  const receipt = await receiptOrNull(ticket.id, { prisma });
  const id = await prisma.$transaction(async (tx) => {
    await tx.webhookDelivery.createMany({
      data: [
        {
          webhookId: hook.id,
          ticketId: ticket.id,
          messageId,
          eventType: RESOLVED_EVENT,
          payload: callbackPayload({ ...ticket, receipt }) as unknown as Prisma.InputJsonObject,
          // A disabled endpoint gets nothing sent; the row waits for a manual redelivery.
          status: hook.enabled ? 'pending' : 'dead',
          lastError: hook.enabled ? null : 'webhook_disabled',
          nextAttemptAt: hook.enabled ? new Date() : null,
        },
      ],
      skipDuplicates: true,
    });
    const row = await tx.webhookDelivery.findUniqueOrThrow({
      where: { messageId },
      select: { id: true, attempts: true },
    });
    if (hook.enabled && row.attempts === 0) await enqueueAttempt(tx, row.id, 1);
    return row.id;
  });
  nudgeRelay();
  return id;
}

/**
 * One attempt of one callback delivery (the `webhooks.deliver` job). A job
 * whose attempt number is not the next one is a duplicate and does nothing.
 * On failure the next attempt is an outbox row due after the policy's delay,
 * so retries survive restarts and Redis outages like any other work.
 * With `slots` (the worker's), the request needs one of the host's
 * callback slots: HostBusyError when all are taken, nothing recorded (the
 * job comes back later; this was no attempt).
 */
export async function deliverAttempt(
  deliveryId: string,
  attempt: number,
  manual = false,
  slots?: HostSlots,
): Promise<'sent' | 'failed' | 'skipped'> {
  const prisma = await db();
  const d = await prisma.webhookDelivery.findUnique({
    where: { id: deliveryId },
    select: {
      id: true,
      messageId: true,
      payload: true,
      status: true,
      attempts: true,
      inFlightAttempt: true,
      webhook: { select: { id: true, url: true, enabled: true, timeoutMs: true, hostId: true } },
    },
  });
  if (!d || d.attempts !== attempt - 1) return 'skipped';
  if (d.status === 'delivered' && !manual) return 'skipped';
  if (d.inFlightAttempt === attempt) {
    // An earlier run of this attempt sent (or was sending) the request and
    // stopped before recording it: the worker was killed or lost its job.
    // The receiver may have it; the log says so, and the next attempt
    // resends under the same webhook-id, which receivers deduplicate.
    await recordAttempt(prisma, {
      deliveryId: d.id,
      webhookId: d.webhook.id,
      hostId: d.webhook.hostId,
      attempt,
      result: { ok: false, latencyMs: 0, error: WORKER_STOPPED_ERROR },
      retry: !manual && attempt < maxAttempts(),
    });
    log.warn({ deliveryId, attempt }, 'webhook attempt interrupted; recorded as outcome unknown');
    return 'failed';
  }
  if (!d.webhook.enabled && !manual) {
    await prisma.webhookDelivery.updateMany({
      where: { id: d.id, attempts: d.attempts },
      data: { status: 'dead', lastError: 'webhook_disabled', nextAttemptAt: null },
    });
    return 'skipped';
  }
  // A secret this process cannot decrypt (another APP_ENCRYPTION_KEY, a
  // tampered row) is a failed attempt with its error, like a refused request.
  const timeoutMs = Math.min(d.webhook.timeoutMs, CALLBACK_TIMEOUT_MS);
  const post = async () => {
    await prisma.webhookDelivery.updateMany({
      where: { id: d.id, attempts: d.attempts },
      data: { inFlightAttempt: attempt },
    });
    return postSigned(prisma, {
      webhookId: d.webhook.id,
      messageId: d.messageId,
      url: d.webhook.url,
      body: JSON.stringify(d.payload),
      timeoutMs,
    });
  };
  const res = slots
    ? await slots.run({ hostId: d.webhook.hostId, kind: 'callback', timeoutMs }, post)
    : await post();
  const retry = !res.ok && !manual && attempt < maxAttempts();
  await recordAttempt(prisma, {
    deliveryId: d.id,
    webhookId: d.webhook.id,
    hostId: d.webhook.hostId,
    attempt,
    result: res,
    retry,
  });
  if (!res.ok) {
    log[res.notSent ? 'warn' : 'info'](
      { deliveryId, attempt, error: res.error },
      'webhook attempt failed',
    );
  }
  return res.ok ? 'sent' : 'failed';
}

/**
 * The job's last resort (jobs/webhooks-deliver.ts): `deliverAttempt` threw
 * before recording its attempt, so the attempt is recorded here as failed,
 * with the error, retried on the policy's schedule and counted toward
 * auto-disable. Returns false when it could not be recorded either (the
 * database is away): the job then throws and BullMQ runs it again.
 */
export async function recordFailedAttempt(
  deliveryId: string,
  attempt: number,
  manual: boolean,
  err: unknown,
): Promise<boolean> {
  try {
    const prisma = await db();
    const d = await prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      select: { attempts: true, webhook: { select: { id: true, hostId: true } } },
    });
    // Gone, or the attempt was recorded after all: nothing is owed.
    if (!d || d.attempts !== attempt - 1) return true;
    // Where it threw is unknown (the request may have gone out): not `notSent`.
    const error = attemptErrorText(err, 'attempt_error');
    await recordAttempt(prisma, {
      deliveryId,
      webhookId: d.webhook.id,
      hostId: d.webhook.hostId,
      attempt,
      result: { ok: false, latencyMs: 0, error },
      retry: !manual && attempt < maxAttempts(),
    });
    log.warn({ deliveryId, attempt, error }, 'webhook attempt threw; recorded as failed');
    return true;
  } catch {
    return false;
  }
}

/** Manual redelivery from the delivery log: one more attempt, now, with the same webhook-id. */
export async function redeliver(hostId: string, deliveryId: string): Promise<void> {
  const prisma = await db();
  const d =
    isUuid(deliveryId) && isUuid(hostId)
      ? await prisma.webhookDelivery.findFirst({
          where: { id: deliveryId, webhook: { hostId } },
          select: { id: true, attempts: true },
        })
      : null;
  if (!d) throw new WebhookError('not_found', 'The delivery was not found.');
  await prisma.$transaction(async (tx) => {
    await tx.webhookDelivery.update({
      where: { id: d.id },
      data: { status: 'pending', nextAttemptAt: new Date() },
    });
    await enqueueAttempt(tx, d.id, d.attempts + 1, { manual: true });
  });
  nudgeRelay();
}
