import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { slackPostDedupeKey } from '../jobs/definitions';
import { nudgeRelay } from '../queue/outbox';
import { publishTicketEvent } from './events';

/**
 * The resolver phase (issue 6): a host with an enabled resolver webhook has
 * each new ticket offered to it first. While `resolverUntil` is in the
 * future, reviewers and Slack wait; the resolver either decides, or hands the
 * ticket over (clears `resolverUntil`). If the consultation never happens
 * (Redis or the worker down), time alone hands it over: every check is
 * `resolverUntil > now`, never a flag that a job has to clear.
 */

/** Slack between the webhook's own timeout and the hand-over by time (job pick-up, retries). */
export const RESOLVER_MARGIN_MS = 2_000;
/** The least time reviewers keep after a resolver phase, whatever the ticket's lifetime. */
export const RESOLVER_MIN_HUMAN_MS = 60_000;

/**
 * When the resolver phase of a ticket created at `now` ends, or null when
 * there is none. The phase never eats the reviewers' time: it is skipped
 * (the ticket goes straight to humans, and the resolver is not consulted)
 * unless reviewers keep at least half of the ticket's lifetime and at
 * least RESOLVER_MIN_HUMAN_MS after it.
 */
export function resolverPhaseEnd(
  now: number,
  expiresAt: Date,
  resolverTimeoutMs: number | null,
): Date | null {
  if (resolverTimeoutMs === null) return null;
  const until = now + resolverTimeoutMs + RESOLVER_MARGIN_MS;
  const lifetime = expiresAt.getTime() - now;
  const left = expiresAt.getTime() - until;
  return left >= Math.max(RESOLVER_MIN_HUMAN_MS, lifetime / 2) ? new Date(until) : null;
}

/** True while the ticket is with the resolver: decided by time, never by a job. */
export function withResolver(resolverUntil: Date | null, now = Date.now()): boolean {
  return resolverUntil !== null && resolverUntil.getTime() > now;
}

/**
 * Hands a pending ticket over to the reviewers now (the resolver answered
 * unresolved, failed, timed out or was invalid): clears `resolverUntil`,
 * moves its deferred Slack post forward, and tells the inbox (a `created`
 * event: to the reviewers it is new). Returns true when this call did it.
 */
export async function handOverTicket(prisma: PrismaClient, ticketId: string): Promise<boolean> {
  const res = await prisma.approvalTicket.updateMany({
    where: { id: ticketId, status: 'pending', resolverUntil: { not: null } },
    data: { resolverUntil: null },
  });
  if (res.count !== 1) return false;
  // The post was queued for the end of the phase (slack/fanout.ts); not yet
  // relayed, so moving its row's time forward posts it at once, same key.
  await prisma.outboxEvent.updateMany({
    where: { dedupeKey: slackPostDedupeKey(ticketId), dispatchedAt: null },
    data: { availableAt: new Date() },
  });
  nudgeRelay();
  const t = await prisma.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { hostId: true },
  });
  if (t) publishTicketEvent({ type: 'created', ticketId, hostId: t.hostId });
  return true;
}
