import { ApiError } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';
import { webhookApiError } from '@/lib/server/webhooks/http';
import { selfTestResolver } from '@/lib/server/webhooks/webhooks';

/** POST /api/v1/webhooks/resolver/self-test: runs the self-test now and returns it. */
export const POST = route({ auth: 'host' }, async ({ host, params }) => {
  if (params.kind !== 'resolver') {
    throw new ApiError(404, 'not_found', 'Only a resolver has a self-test.');
  }
  try {
    return await selfTestResolver(host.hostId, null);
  } catch (err) {
    throw webhookApiError(err);
  }
});
