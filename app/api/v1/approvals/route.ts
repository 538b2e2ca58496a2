import { ticketCreatedBody } from '@/lib/server/approvals/http';
import {
  createApprovalTicket,
  MAX_REQUEST_BYTES,
  parseApprovalText,
} from '@/lib/server/approvals/intake';
import { publicOrigin } from '@/lib/server/approvals/origin';
import { route } from '@/lib/server/http/route';

/**
 * POST /api/v1/approvals: a host asks for approval (§9 ApprovalRequest plus
 * optional `session`, `agent`, `timeout_ms`, `identity_provider`, `deny_set`). 201 with
 * the new ticket; 200 with the existing one when the same identity was
 * posted before (idempotent retries). The raw text is read by route() so
 * the §4.4 checks see it before any parse; refusals are in docs/api-errors.md.
 */
export const POST = route(
  { auth: 'host', text: 'json', maxBodyBytes: MAX_REQUEST_BYTES },
  async ({ req, host, text }) => {
    const { ticket, created } = await createApprovalTicket(host.hostId, parseApprovalText(text));
    return Response.json(ticketCreatedBody(ticket, publicOrigin(req)), {
      status: created ? 201 : 200,
    });
  },
);
