import 'server-only';
import { z } from 'zod';
import { runTicketFanout } from '../webhooks/fanout';
import '../webhooks/fanout-entries';
import { defineJob } from './define-job';

const payload = z.object({ ticketId: z.uuid() }).strict();

/** A ticket was created: every fan-out entry's `onCreated` (resolver webhook, Slack post). */
export const approvalsCreatedJob = defineJob({
  name: 'approvals.created',
  schema: payload,
  attempts: 8,
  backoffMs: 2_000,
  async handler(p, ctx) {
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
    await runTicketFanout('approvals.resolved', p.ticketId, ctx);
  },
});
