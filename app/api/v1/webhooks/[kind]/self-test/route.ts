import { notFound } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';
import { selfTestResolver } from '@/lib/server/webhooks/webhooks';

/** POST /api/v1/webhooks/resolver/self-test: runs the self-test now and returns it. */
export const POST = route({ auth: 'host' }, async ({ host, params }) => {
  if (params.kind !== 'resolver') throw notFound('A self-test (only a resolver has one)');
  return selfTestResolver(host.hostId, null);
});
