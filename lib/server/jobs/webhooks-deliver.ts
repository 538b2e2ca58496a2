import 'server-only';
import { deliverAttempt, recordFailedAttempt } from '../webhooks/deliveries';
import { HostBusyError } from '../webhooks/host-slots';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * One attempt of a callback delivery. Retries are not BullMQ's: a failed
 * attempt writes the next one as an outbox row due after the policy's delay
 * (webhooks/policy.ts), so the schedule survives restarts and Redis outages,
 * and the delivery log shows when the next attempt is due. Anything the
 * attempt throws is recorded as a failed attempt with its error (it counts
 * toward auto-disable and shows in the log; a delivery never stays pending
 * with no attempt and no error). Only when that cannot be written either
 * (database down) does the job throw, and BullMQ runs it again; the attempt
 * number keeps it once.
 */
export const webhooksDeliverJob = withHandler(
  jobDefinitions['webhooks.deliver'],
  async (p, ctx) => {
    try {
      await deliverAttempt(p.deliveryId, p.attempt, p.manual, ctx.hostSlots);
    } catch (err) {
      // The host is at its limit: no request was made, so no attempt; the worker postpones the job.
      if (err instanceof HostBusyError) throw err;
      if (!(await recordFailedAttempt(p.deliveryId, p.attempt, p.manual, err))) throw err;
    }
  },
);
