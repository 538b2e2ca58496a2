import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { resolveDedupeKey } from '../jobs/definitions';
import { enqueue } from '../queue/outbox';

/**
 * The resolver step of the ticket fan-out (jobs/approvals-fanout.ts): a new
 * ticket in its resolver phase is offered to the host's resolver webhook
 * through its own job, so a slow resolver holds up nothing else. The
 * callback step is `createCallbackDelivery` (./deliveries.ts). Idempotent per
 * ticket: the dedupe key makes a re-run of the fan-out add nothing.
 */
export async function offerTicketToResolver(db: PrismaClient, ticketId: string): Promise<void> {
  const ticket = await db.approvalTicket.findUnique({
    where: { id: ticketId },
    select: { hostId: true, resolverUntil: true },
  });
  // No resolver phase (none registered at intake, or too close a deadline): humans only.
  if (!ticket?.resolverUntil) return;
  const hook = await db.webhook.findUnique({
    where: { hostId_kind: { hostId: ticket.hostId, kind: 'resolver' } },
    select: { enabled: true },
  });
  if (!hook?.enabled) return;
  await enqueue(db, {
    kind: 'webhooks.resolve',
    payload: { ticketId },
    dedupeKey: resolveDedupeKey(ticketId),
  });
}
