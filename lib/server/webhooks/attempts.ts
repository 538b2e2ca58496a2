import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { deliverDedupeKey } from '../jobs/definitions';
import {
  countWebhookAttempt,
  countWebhookAutoDisabled,
  observeWebhookAttempt,
} from '../metrics/webhooks';
import { enqueueInTx, nudgeRelay } from '../queue/outbox';
import { webhookPolicy } from './policy';
import type { AttemptResult } from './post-signed';

export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  hostId: string;
  attempt: number;
  /** A request's outcome, or a failure before any request (`notSent`): both are attempts. */
  result: AttemptResult;
  /** Schedule the next attempt (callbacks that have attempts left). */
  retry: boolean;
  /** Resolver consultations are final: `failed` rather than pending a retry. */
  final?: boolean;
}

/**
 * Writes the outbox row of one attempt of a callback delivery (the
 * `webhooks.deliver` job) in the caller's transaction, due at `at`. A manual
 * redelivery gets its own key, so it never collides with a scheduled retry.
 */
export async function enqueueAttempt(
  tx: Prisma.TransactionClient | PrismaClient,
  deliveryId: string,
  attempt: number,
  opts: { at?: Date; manual?: boolean } = {},
): Promise<void> {
  await enqueueInTx(tx, {
    kind: 'webhooks.deliver',
    payload: { deliveryId, attempt, manual: opts.manual ?? false },
    dedupeKey: deliverDedupeKey(deliveryId, attempt, opts.manual),
    availableAt: opts.at,
  });
}

/**
 * Writes an attempt's outcome, its next attempt (if any) and the endpoint's
 * failure streak in one transaction. The update is conditional on the
 * attempt count, so a duplicate job cannot record twice. N consecutive
 * failures disable the endpoint and leave an AuditEvent that the host page
 * shows as a banner. Every recorded attempt is counted in the metrics.
 */
export async function recordAttempt(prisma: PrismaClient, a: AttemptRecord): Promise<void> {
  const policy = webhookPolicy();
  const r = a.result;
  const delay = policy.retryDelaysMs[a.attempt - 1] ?? 0;
  const next = a.retry ? new Date(Date.now() + delay) : null;
  const counted = await prisma.$transaction(async (tx) => {
    const updated = await tx.webhookDelivery.updateMany({
      where: { id: a.deliveryId, attempts: a.attempt - 1 },
      data: {
        attempts: a.attempt,
        status: r.ok ? 'delivered' : a.retry ? 'failed' : 'dead',
        lastStatusCode: r.status ?? null,
        lastError: r.ok ? null : (r.error ?? 'failed').slice(0, 500),
        latencyMs: r.latencyMs,
        inFlightAttempt: null,
        deliveredAt: r.ok ? new Date() : undefined,
        nextAttemptAt: next,
      },
    });
    if (updated.count === 0) return null;
    if (next) await enqueueAttempt(tx, a.deliveryId, a.attempt + 1, { at: next });
    if (r.ok) {
      const { kind } = await tx.webhook.update({
        where: { id: a.webhookId },
        data: { consecutiveFailures: 0 },
        select: { kind: true },
      });
      return { kind, disabled: false };
    }
    const hook = await tx.webhook.update({
      where: { id: a.webhookId },
      data: { consecutiveFailures: { increment: 1 } },
      select: { consecutiveFailures: true, enabled: true, kind: true, url: true },
    });
    if (hook.enabled && hook.consecutiveFailures >= policy.disableAfterFailures) {
      const reason = `${hook.consecutiveFailures} consecutive failed deliveries (last: ${r.error ?? 'failed'})`;
      await tx.webhook.update({
        where: { id: a.webhookId },
        data: { enabled: false, disabledAt: new Date(), disabledReason: reason },
      });
      await tx.auditEvent.create({
        data: {
          actorKind: 'system',
          action: 'webhook.disabled',
          targetType: 'host',
          targetId: a.hostId,
          details: { webhookId: a.webhookId, kind: hook.kind, reason },
        },
      });
      return { kind: hook.kind, disabled: true };
    }
    return { kind: hook.kind, disabled: false };
  });
  if (counted) {
    countWebhookAttempt(counted.kind, r.ok ? 'delivered' : r.notSent ? 'not_sent' : 'failed');
    if (!r.notSent) observeWebhookAttempt(counted.kind, r.latencyMs);
    if (counted.disabled) countWebhookAutoDisabled(counted.kind);
  }
  if (next) nudgeRelay();
}
