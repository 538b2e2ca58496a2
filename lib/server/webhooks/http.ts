import 'server-only';
import { z } from 'zod';
import type { DeliveryRow } from './delivery-log';
import type { WebhookView } from './webhooks';

export const saveBody = z
  .object({
    url: z.string().min(1).max(2048),
    timeout_ms: z.number().int().optional(),
  })
  .strict();

export const rotateBody = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 3600)
      .optional(),
  })
  .strict();

/** `GET /api/v1/webhooks/deliveries?limit=`: how many of the newest deliveries. */
export const deliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(500).default(100) })
  .strict();

/** The API shape of a webhook: never a secret, only when each one stops. */
export function webhookJson(w: WebhookView | null) {
  if (!w) return null;
  return {
    id: w.id,
    kind: w.kind,
    url: w.url,
    enabled: w.enabled,
    timeout_ms: w.timeoutMs,
    consecutive_failures: w.consecutiveFailures,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    disabled_reason: w.disabledReason,
    self_test: w.selfTest,
    secrets: w.secrets.map((s) => ({
      created_at: s.createdAt.toISOString(),
      expires_at: s.expiresAt?.toISOString() ?? null,
    })),
  };
}

export function deliveryJson(d: DeliveryRow) {
  return {
    id: d.id,
    kind: d.kind,
    ticket_id: d.ticketId,
    webhook_id: d.messageId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    latency_ms: d.latencyMs,
    created_at: d.createdAt.toISOString(),
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}
