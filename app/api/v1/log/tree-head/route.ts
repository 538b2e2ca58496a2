import { route } from '@/lib/server/http/route';
import { logReader } from '@/lib/server/transparency/access';
import { getTreeHead, treeHeadQuery } from '@/lib/server/transparency/api';

/**
 * GET /api/v1/log/tree-head[?size=N]: the newest signed tree head of the
 * transparency log (signed on demand when there is none yet), or the one
 * issued at size N. Auditors, admins, or any host's API key (access.ts).
 */
export const GET = route({ auth: 'public', query: treeHeadQuery }, async ({ req, query }) => {
  await logReader(req);
  return Response.json(await getTreeHead(query), { headers: { 'Cache-Control': 'no-store' } });
});
