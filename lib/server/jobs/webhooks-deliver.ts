import 'server-only';
import { deliverAttempt } from '../webhooks/deliveries';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * One attempt of a callback delivery. Retries are not BullMQ's: a failed
 * attempt writes the next one as an outbox row due after the policy's delay
 * (webhooks/policy.ts), so the schedule survives restarts and Redis outages,
 * and the delivery log shows when the next attempt is due. A throw here
 * (database down) is retried by BullMQ; the attempt number keeps it once.
 */
export const webhooksDeliverJob = withHandler(jobDefinitions['webhooks.deliver'], async (p) => {
  await deliverAttempt(p.deliveryId, p.attempt, p.manual);
});
