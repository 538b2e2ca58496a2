import { route } from '@/lib/server/http/route';
import { logReader } from '@/lib/server/transparency/access';
import { consistencyQuery, getConsistency } from '@/lib/server/transparency/api';

/**
 * GET /api/v1/log/proof/consistency?from=M&to=N: RFC 9162 consistency proof
 * that the tree of size M is a prefix of the tree of size N.
 */
export const GET = route({ auth: 'public', query: consistencyQuery }, async ({ req, query }) => {
  await logReader(req);
  return getConsistency(query);
});
