import { evidenceQuery, sessionEvidence } from '@/lib/server/audit/evidence';
import { route } from '@/lib/server/http/route';
import { logReader } from '@/lib/server/transparency/access';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/audit/sessions/{id}/evidence?host_id=<uuid>[&consistency_from=N]:
 * the session's evidence bundle, the signed JSONL format with the JWKS
 * embedded (docs/verifying.md), as a download; `consistency_from` adds the
 * consistency proof from the tree head of size N (for `audit verify
 * --tree-head`). Signed-in auditors and admins, or the
 * host's own API key (another host's session is 404).
 */
export const GET = route(
  { auth: 'public', query: evidenceQuery },
  async ({ req, query, params }) => {
    const reader = await logReader(req);
    const bundle = await sessionEvidence(reader, query.host_id, String(params.id), {
      consistencyFrom: query.consistency_from,
    });
    return new Response(bundle.body, {
      status: 200,
      headers: {
        'Content-Type': 'application/x-ndjson; charset=utf-8',
        'Content-Disposition': `attachment; filename="${bundle.filename}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  },
);
