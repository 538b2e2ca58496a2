import 'server-only';
import { z } from 'zod';
import { defineJob } from './define-job';

/**
 * One attempt of a callback delivery. Retries are not BullMQ's: a failed
 * attempt writes the next one as an outbox row due after the policy's delay
 * (webhooks/policy.ts), so the schedule survives restarts and Redis outages,
 * and the delivery log shows when the next attempt is due. A throw here
 * (database down) is retried by BullMQ; the attempt number keeps it once.
 */
export const webhooksDeliverJob = defineJob({
  name: 'webhooks.deliver',
  schema: z
    .object({
      deliveryId: z.uuid(),
      attempt: z.number().int().min(1).max(1000),
      manual: z.boolean().default(false),
    })
    .strict(),
  attempts: 5,
  backoffMs: 2_000,
  async handler(p) {
    // Loaded lazily: see approvals-fanout.ts (registry ↔ outbox import cycle).
    const { deliverAttempt } = await import('../webhooks/deliveries');
    await deliverAttempt(p.deliveryId, p.attempt, p.manual);
  },
});
