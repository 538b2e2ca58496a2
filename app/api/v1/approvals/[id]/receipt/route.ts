import type { NextRequest } from 'next/server';
import { getCurrentUser } from '@/lib/server/auth/session';
import { hasAnyRole, Role } from '@/lib/server/auth/roles';
import { forbidden, notFound, unauthenticated } from '@/lib/server/http/api-error';
import { authenticateHost } from '@/lib/server/http/host-auth';
import { route } from '@/lib/server/http/route';
import { isUuid } from '@/lib/server/http/uuid';
import { receiptForTicket } from '@/lib/server/receipts';

/**
 * GET /api/v1/approvals/{id}/receipt: the decision's signed approval
 * receipt, a compact JWS (`application/jose`; docs/receipts.md), the URL
 * the resolution's evidence points at (§5.3). Readers: the ticket's own
 * host (API key; another host's ticket is 404, as for the resolution) and
 * signed-in people who see tickets (admins, reviewers, auditors). Not
 * public: a receipt names the decider. 404 while the ticket is pending.
 */
export const dynamic = 'force-dynamic';

export const GET = route({ auth: 'public' }, async ({ req, params }) => {
  const hostId = await readerHostScope(req);
  const id = String(params.id);
  const jws = isUuid(id) ? await receiptForTicket(id, { hostId }) : null;
  if (!jws) throw notFound('A receipt for this approval');
  return new Response(jws, {
    headers: {
      'content-type': 'application/jose',
      'cache-control': 'private, no-store',
      'content-disposition': `inline; filename="receipt-${id}.jws"`,
    },
  });
});

/** The host a key-bearing caller is limited to; undefined for a person who may see every ticket. */
async function readerHostScope(req: NextRequest): Promise<string | undefined> {
  if (req.headers.get('authorization') !== null) return (await authenticateHost(req)).hostId;
  const user = await getCurrentUser();
  if (!user) throw unauthenticated('Send a host API key or sign in to read receipts.');
  if (!hasAnyRole(user.roles, [Role.admin, Role.reviewer, Role.auditor])) throw forbidden();
  return undefined;
}
