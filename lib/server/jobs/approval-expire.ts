import 'server-only';
import { z } from 'zod';
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
    // Loaded when the job runs: approvals/intake imports this file for the
    // dedupe key, and a static import would close the cycle intake → this →
    // expire → outbox → registry → this while it is still initializing.
    const { expireTicket } = await import('../approvals/expire');
    await expireTicket(payload.ticketId);
  },
});

export function approvalExpireDedupeKey(ticketId: string): string {
  return `approvals.expire.${ticketId}`;
}
