import 'server-only';
import type { TicketRef } from './intake';

/** The 201/200 body of POST /api/v1/approvals. */
export function ticketCreatedBody(ticket: TicketRef, origin: string) {
  return {
    id: ticket.id,
    status: ticket.status,
    expires_at: ticket.expiresAt.toISOString(),
    context_identity: ticket.contextIdentity,
    links: {
      self: `${origin}/api/v1/approvals/${ticket.id}`,
      wait: `${origin}/api/v1/approvals/${ticket.id}?wait=30`,
      ui: `${origin}/approvals/${ticket.id}`,
    },
  };
}
