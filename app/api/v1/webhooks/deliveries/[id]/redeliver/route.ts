import { route } from '@/lib/server/http/route';
import { redeliver } from '@/lib/server/webhooks/deliveries';

/** POST /api/v1/webhooks/deliveries/{id}/redeliver: one more attempt, same webhook-id. 202. */
export const POST = route({ auth: 'host' }, async ({ host, params }) => {
  await redeliver(host.hostId, String(params.id));
  return Response.json({ queued: true }, { status: 202 });
});
