import 'server-only';
import { db } from '../db';
import { moduleLogger } from '../logger';
import { commitDecision } from './commit-decision';
import { publishTicketEvent } from './events';
import { buildResolution } from './resolution';

const log = moduleLogger('approvals-expiry');

/**
 * Resolves a pending ticket whose deadline has passed as `unresolved`,
 * echoing its identity (§9); the host enforces that as
 * `host_error:approval_unresolved`. The same conditional update as a decision
 * keeps it exactly-once against a racing decision, the delayed job, the sweep
 * and other instances. Returns true when this call expired it.
 */
export async function expireTicket(ticketId: string, now = new Date()): Promise<boolean> {
  const prisma = await db();
  const ticket = await prisma.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { id: true, hostId: true, status: true, expiresAt: true, contextIdentity: true },
  });
  if (ticket?.status !== 'pending' || ticket.expiresAt > now) return false;
  const resolution = buildResolution(ticket.contextIdentity, 'unresolved');
  const won = await commitDecision(prisma, {
    ticketId: ticket.id,
    deadline: 'passed',
    status: 'expired',
    outcome: 'unresolved',
    at: now,
    resolution,
    verdict: null,
    contextIdentity: ticket.contextIdentity,
    decidedByKind: 'system',
    userId: null,
    note: null,
    audit: {
      actorKind: 'system',
      action: 'approval.expired',
      details: { outcome: 'unresolved', contextIdentity: ticket.contextIdentity },
    },
  });
  if (won) publishTicketEvent({ type: 'expired', ticketId: ticket.id, hostId: ticket.hostId });
  return won;
}

/**
 * The sweep: expires every pending ticket past its deadline, oldest first.
 * It needs only the database, so tickets expire while Redis (and with it the
 * delayed expiry job) is down.
 */
export async function expireDueTickets(limit = 200): Promise<number> {
  const prisma = await db();
  const now = new Date();
  const due = await prisma.approvalTicket.findMany({
    where: { status: 'pending', expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: 'asc' },
    take: limit,
  });
  let expired = 0;
  for (const t of due) {
    try {
      if (await expireTicket(t.id, now)) expired++;
    } catch (err) {
      log.error(
        { ticketId: t.id, err: err instanceof Error ? err.message : String(err) },
        'expiry failed',
      );
    }
  }
  return expired;
}
