import { route } from '@/lib/server/http/route';
import { webhookJson } from '@/lib/server/webhooks/http';
import { getHostWebhooks } from '@/lib/server/webhooks/webhooks';

/** GET /api/v1/webhooks: the calling host's callback and resolver (no secrets). */
export const GET = route({ auth: 'host' }, async ({ host }) => {
  const hooks = await getHostWebhooks(host.hostId);
  return { callback: webhookJson(hooks.callback), resolver: webhookJson(hooks.resolver) };
});
