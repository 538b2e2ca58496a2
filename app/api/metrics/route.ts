import { route } from '@/lib/server/http/route';
import { authorizeMetrics } from '@/lib/server/metrics/authorize';
import { METRICS_CONTENT_TYPE, renderMetrics } from '@/lib/server/metrics/render';

/** Prometheus metrics; a metrics token or a signed-in auditor/admin (see metrics/authorize.ts). */
export const GET = route({ auth: 'public' }, async ({ req }) => {
  await authorizeMetrics(req);
  return new Response(await renderMetrics(), {
    headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' },
  });
});

export const dynamic = 'force-dynamic';
