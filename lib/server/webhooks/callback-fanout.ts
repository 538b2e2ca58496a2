import 'server-only';
import { enqueue } from '../queue/outbox';
import { createCallbackDelivery } from './deliveries';
import { ticketFanout } from './fanout';

/**
 * The webhooks part of the ticket fan-out: a new ticket in its resolver
 * phase is offered to the host's resolver webhook (through its own job, so a
 * slow resolver holds up nothing else), and a settled one becomes a callback
 * delivery.
 */
if (!ticketFanout.some((e) => e.name === 'webhooks')) {
  ticketFanout.push({
    name: 'webhooks',
    async onCreated(ticketId, ctx) {
      const prisma = ctx.db;
      const ticket = await prisma.approvalTicket.findUnique({
        where: { id: ticketId },
        select: { hostId: true, resolverUntil: true },
      });
      // No resolver phase (none registered at intake, or too close a deadline): humans only.
      if (!ticket?.resolverUntil) return;
      const hook = await prisma.webhook.findUnique({
        where: { hostId_kind: { hostId: ticket.hostId, kind: 'resolver' } },
        select: { enabled: true },
      });
      if (!hook?.enabled) return;
      await enqueue(prisma, {
        kind: 'webhooks.resolve',
        payload: { ticketId },
        dedupeKey: `webhooks.resolve.${ticketId}`,
      });
    },
    async onResolved(ticketId) {
      await createCallbackDelivery(ticketId);
    },
  });
}
