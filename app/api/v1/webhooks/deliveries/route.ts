import { route } from '@/lib/server/http/route';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { deliveriesQuery, deliveryJson } from '@/lib/server/webhooks/http';

/** GET /api/v1/webhooks/deliveries: the calling host's delivery log, newest first. */
export const GET = route({ auth: 'host', query: deliveriesQuery }, async ({ host, query: q }) => {
  const rows = await listDeliveries(host.hostId, q.limit);
  return { deliveries: rows.map(deliveryJson) };
});
