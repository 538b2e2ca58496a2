import { route } from '@/lib/server/http/route';
import { logReader } from '@/lib/server/transparency/access';
import { getInclusion, inclusionQuery } from '@/lib/server/transparency/api';

/**
 * GET /api/v1/log/proof/inclusion?index=I|record=ID|decision=UUID[&size=N]:
 * RFC 9162 inclusion proof of one leaf with the signed tree head it proves
 * against. A host sees only its own records and decisions (404 otherwise).
 */
export const GET = route({ auth: 'public', query: inclusionQuery }, async ({ req, query }) =>
  getInclusion(await logReader(req), query),
);
