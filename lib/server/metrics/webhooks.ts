import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { checkpointMetrics } from './registry';

/** How a recorded webhook attempt ended. */
export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'not_sent';

const KINDS = ['callback', 'resolver'] as const;
const STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;

/** One attempt recorded in the delivery log (webhooks/attempts.ts : recordAttempt). */
export function countWebhookAttempt(kind: string, outcome: WebhookAttemptOutcome): void {
  checkpointMetrics().webhookAttempts.inc({ kind, outcome });
}

/** How long an attempt that made a request took (timeouts included); `notSent` ones are not observed. */
export function observeWebhookAttempt(kind: string, latencyMs: number): void {
  checkpointMetrics().webhookAttemptDuration.observe({ kind }, latencyMs / 1000);
}

/** An endpoint switched off by its failure streak. */
export function countWebhookAutoDisabled(kind: string): void {
  checkpointMetrics().webhooksAutoDisabled.inc({ kind });
}

/**
 * Scrape-time gauges from PostgreSQL: unlike the counters they include what
 * a separate worker process did, which is where deliveries usually run.
 */
export async function setWebhookGauges(prisma: PrismaClient): Promise<void> {
  const m = checkpointMetrics();
  const [deliveries, disabled, p95] = await Promise.all([
    prisma.$queryRaw<{ kind: string; status: string; n: number }[]>`
      SELECT w."kind"::text AS kind, d."status"::text AS status, count(*)::int AS n
      FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      GROUP BY 1, 2`,
    prisma.webhook.groupBy({
      by: ['kind'],
      where: { enabled: false, disabledReason: { not: 'disabled_by_admin' } },
      _count: { _all: true },
    }),
    // By kind only, not by host: a series per host grows with the tenants
    // (and archived ones linger), while the host page shows each host's own
    // figures. Uses the (webhookId, createdAt) index through the time bound.
    prisma.$queryRaw<{ kind: string; p95: number | null }[]>`
      SELECT w."kind"::text AS kind,
             percentile_cont(0.95) WITHIN GROUP (ORDER BY d."latencyMs")::float8 AS p95
      FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      WHERE d."createdAt" > (now() AT TIME ZONE 'UTC') - interval '1 hour'
        AND d."attempts" > 0 AND d."latencyMs" IS NOT NULL
      GROUP BY 1`,
  ]);
  const p95s = new Map(p95.map((r) => [r.kind, r.p95 ?? 0]));
  const count = new Map(deliveries.map((r) => [`${r.kind}/${r.status}`, r.n]));
  const off = new Map(disabled.map((r) => [String(r.kind), r._count._all]));
  for (const kind of KINDS) {
    for (const status of STATUSES) {
      m.webhookDeliveries.set({ kind, status }, count.get(`${kind}/${status}`) ?? 0);
    }
    m.webhooksDisabled.set({ kind }, off.get(kind) ?? 0);
    m.webhookLatencyP95.set({ kind }, (p95s.get(kind) ?? 0) / 1000);
  }
}
