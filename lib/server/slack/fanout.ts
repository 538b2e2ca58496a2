import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { slackPostDedupeKey, slackUpdateDedupeKey } from '../jobs/definitions';
import { enqueue } from '../queue/outbox';

/**
 * Slack's steps of the ticket fan-out (jobs/approvals-fanout.ts): each writes
 * the Slack job as its own outbox row, so Slack retries on its own schedule
 * and a Slack outage never re-runs the host callbacks. The dedupe keys make
 * a re-run of the fan-out add nothing.
 */

/**
 * Only tickets that reach people are posted: one with the resolver is posted
 * when its phase ends, unless handed over earlier (handOverTicket moves this
 * row's time forward) or decided by the resolver (postTicketMessage skips it).
 */
export async function enqueueSlackPost(db: PrismaClient, ticketId: string): Promise<void> {
  const t = await db.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { resolverUntil: true },
  });
  const until = t?.resolverUntil;
  await enqueue(db, {
    kind: 'slack.post',
    payload: { ticketId },
    dedupeKey: slackPostDedupeKey(ticketId),
    availableAt: until && until > new Date() ? until : undefined,
  });
}

/** A settled ticket: its Slack message shows the outcome. */
export async function enqueueSlackUpdate(db: PrismaClient, ticketId: string): Promise<void> {
  await enqueue(db, {
    kind: 'slack.update',
    payload: { ticketId },
    dedupeKey: slackUpdateDedupeKey(ticketId),
  });
}
