import 'server-only';
import { expireTicket } from '../approvals/expire';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * The safety net for one ticket's deadline. Its outbox row is written with the
 * ticket (availableAt = the deadline), so the relay hands it to BullMQ when it
 * is due. The expiry scheduler (approvals/expiry-scheduler.ts) normally
 * expires the ticket first, at the deadline and with Redis down too; this is
 * then a no-op. Whichever runs first wins, exactly once.
 */
export const approvalExpireJob = withHandler(
  jobDefinitions['approvals.expire'],
  async (payload) => {
    await expireTicket(payload.ticketId);
  },
);
