import 'server-only';
import { z } from 'zod';
import { defineJob } from './define-job';

/**
 * Consults the host's resolver webhook for a new ticket, once (the delivery
 * row guards reruns). A failed consultation is not retried: it hands the
 * ticket to the reviewers; if this job never runs, the end of the resolver
 * phase does (resolver-phase.ts).
 */
export const webhooksResolveJob = defineJob({
  name: 'webhooks.resolve',
  schema: z.object({ ticketId: z.uuid() }).strict(),
  attempts: 3,
  backoffMs: 1_000,
  async handler(p) {
    // Loaded lazily: see approvals-fanout.ts (registry ↔ outbox import cycle).
    const { consultResolver } = await import('../webhooks/resolver');
    await consultResolver(p.ticketId);
  },
});
