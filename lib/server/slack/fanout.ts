import 'server-only';
import type { JobContext } from '../jobs/define-job';
import { ticketFanout } from '../webhooks/fanout';

/**
 * Slack's part of the ticket fan-out (approvals.created / approvals.resolved):
 * each writes the Slack job as its own outbox row, so Slack retries on its
 * own schedule and a Slack outage never re-runs the host callbacks. The
 * dedupe keys make a re-run of the fan-out add nothing.
 *
 * The outbox is imported when the hook runs, not at load: this module is
 * loaded by the job registry itself (through fanout-entries.ts).
 */
async function enqueueSlackJob(
  kind: 'slack.post' | 'slack.update',
  ticketId: string,
  db: JobContext['db'],
  availableAt?: Date,
): Promise<void> {
  const { enqueue } = await import('../queue/outbox');
  await enqueue(db, { kind, payload: { ticketId }, dedupeKey: `${kind}.${ticketId}`, availableAt });
}

/**
 * Only tickets that reach people are posted: one with the resolver is posted
 * when its phase ends, unless handed over earlier (handOverTicket moves this
 * row's time forward) or decided by the resolver (postTicketMessage skips it).
 */
async function enqueueSlackPost(ticketId: string, db: JobContext['db']): Promise<void> {
  const t = await db.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { resolverUntil: true },
  });
  const until = t?.resolverUntil;
  await enqueueSlackJob(
    'slack.post',
    ticketId,
    db,
    until && until > new Date() ? until : undefined,
  );
}

if (!ticketFanout.some((e) => e.name === 'slack')) {
  ticketFanout.push({
    name: 'slack',
    onCreated: (ticketId, ctx) => enqueueSlackPost(ticketId, ctx.db),
    onResolved: (ticketId, ctx) => enqueueSlackJob('slack.update', ticketId, ctx.db),
  });
}
