import { parseWaitSeconds } from '@/lib/server/approvals/long-poll';
import { awaitTicket } from '@/lib/server/approvals/wait';
import { notFound } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';
import { isUuid } from '@/lib/server/http/uuid';
import { receiptOrNull } from '@/lib/server/receipts';

/**
 * GET /api/v1/approvals/{id}?wait=SECONDS: long-poll (capped at 30 s) for
 * the ticket's resolution. 200 with the §9 ApprovalResolution once decided
 * or expired; 202 with `Retry-After` while pending. Host-scoped: another
 * host's ticket is 404. The decided answer adds `receipt`, the signed
 * approval receipt (issue 13, docs/receipts.md), issued here if it was
 * missing; null only when it cannot be signed now (the host's `require`
 * policy then fails closed). A §9 resolution with one extra member, which
 * hosts validating §9 ignore.
 */
export const GET = route({ auth: 'host' }, async ({ req, host, params }) => {
  const id = String(params.id);
  const waitMs = parseWaitSeconds(req.nextUrl.searchParams.get('wait')) * 1000;
  const answer = isUuid(id)
    ? await awaitTicket(id, { hostId: host.hostId, waitMs, signal: req.signal })
    : null;
  if (!answer) throw notFound('The approval');
  // A long-poll answer describes this moment: never cached.
  if (answer.state === 'resolved') {
    const receipt = answer.receipt ?? (await receiptOrNull(answer.id, { hostId: host.hostId }));
    return Response.json(
      { ...answer.resolution, receipt },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  }
  return Response.json(
    { id: answer.id, status: 'pending', expires_at: answer.expiresAt.toISOString() },
    { status: 202, headers: { 'Retry-After': '1', 'Cache-Control': 'no-store' } },
  );
});
