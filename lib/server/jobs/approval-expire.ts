import 'server-only';
import { z } from 'zod';
import { expireTicket } from '../approvals/expire';
import { defineJob } from './define-job';

/**
 * Expires one ticket at its deadline. Its outbox row is written with the
 * ticket (availableAt = the deadline), so the relay hands it to BullMQ when it
 * is due. The periodic sweep (approvals/runtime.ts) covers the case where
 * Redis or the worker is down; whichever runs first wins, the other is a no-op.
 */
export const approvalExpireJob = defineJob({
  name: 'approvals.expire',
  schema: z.object({ ticketId: z.uuid() }).strict(),
  attempts: 5,
  backoffMs: 1_000,
  async handler(payload) {
    await expireTicket(payload.ticketId);
  },
});

export function approvalExpireDedupeKey(ticketId: string): string {
  return `approvals.expire.${ticketId}`;
}
