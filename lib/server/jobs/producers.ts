import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueInTx } from '../queue/outbox';
import { type TicketFanoutKind, ticketFanoutDedupeKey } from './definitions';

/**
 * Writes the ticket fan-out's outbox row (`approvals.created` or
 * `approvals.resolved`) in the caller's transaction, so it exists iff the
 * ticket change committed. Idempotent: a second call for the same ticket
 * writes nothing. Call `nudgeRelay()` after commit (commitWithOutbox does).
 */
export function enqueueTicketFanout(
  tx: Prisma.TransactionClient | PrismaClient,
  kind: TicketFanoutKind,
  ticketId: string,
  /** The ticket's host, for the relay's per-host priority (queue/relay.ts). */
  hostId?: string,
): Promise<boolean> {
  return enqueueInTx(tx, {
    kind,
    payload: hostId === undefined ? { ticketId } : { ticketId, hostId },
    dedupeKey: ticketFanoutDedupeKey(kind, ticketId),
  });
}
