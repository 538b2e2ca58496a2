import { z } from 'zod';
import { route } from '@/lib/server/http/route';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { deliveryJson } from '@/lib/server/webhooks/http';

const query = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict();

/** GET /api/v1/webhooks/deliveries: the calling host's delivery log, newest first. */
export const GET = route({ auth: 'host', query }, async ({ host, query: q }) => {
  const rows = await listDeliveries(host.hostId, q.limit);
  return { deliveries: rows.map(deliveryJson) };
});
