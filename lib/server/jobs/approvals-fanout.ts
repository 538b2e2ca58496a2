import 'server-only';
import { z } from 'zod';
import { runTicketFanout } from '../webhooks/fanout';
import { defineJob } from './define-job';

const payload = z.object({ ticketId: z.uuid() }).strict();

// The entries (webhooks, Slack) are loaded when a job first runs, not with the
// registry: they import the outbox, which imports the registry, and in the
// Next build's async module graph that cycle leaves a registry entry
// uninitialized (ReferenceError at the first request).
const loadEntries = () => import('../webhooks/fanout-entries');

/** A ticket was created: every fan-out entry's `onCreated` (resolver webhook, Slack post). */
export const approvalsCreatedJob = defineJob({
  name: 'approvals.created',
  schema: payload,
  attempts: 8,
  backoffMs: 2_000,
  async handler(p, ctx) {
    await loadEntries();
    await runTicketFanout('approvals.created', p.ticketId, ctx);
  },
});

/** A ticket was approved, rejected or expired: every entry's `onResolved` (callbacks, Slack update). */
export const approvalsResolvedJob = defineJob({
  name: 'approvals.resolved',
  schema: payload,
  attempts: 8,
  backoffMs: 2_000,
  async handler(p, ctx) {
    await loadEntries();
    await runTicketFanout('approvals.resolved', p.ticketId, ctx);
  },
});
