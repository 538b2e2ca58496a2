import { route } from '@/lib/server/http/route';
import { authorizeMetrics, renderMetrics } from '@/lib/server/records/prometheus';

/** Prometheus metrics; a metrics token or a signed-in admin/auditor (see prometheus.ts). */
export const GET = route({ auth: 'public' }, async ({ req }) => {
  await authorizeMetrics(req);
  return new Response(await renderMetrics(), {
    headers: {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
    },
  });
});

export const dynamic = 'force-dynamic';
