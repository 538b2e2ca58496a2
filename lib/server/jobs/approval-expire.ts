import 'server-only';
import { expireTicket } from '../approvals/expire';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Expires one ticket at its deadline. Its outbox row is written with the
 * ticket (availableAt = the deadline), so the relay hands it to BullMQ when it
 * is due. The periodic sweep (approvals/runtime.ts) covers the case where
 * Redis or the worker is down; whichever runs first wins, the other is a no-op.
 */
export const approvalExpireJob = withHandler(
  jobDefinitions['approvals.expire'],
  async (payload) => {
    await expireTicket(payload.ticketId);
  },
);
