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
  const [deliveries, disabled] = await Promise.all([
    prisma.$queryRaw<{ kind: string; status: string; n: number }[]>`
      SELECT w."kind"::text AS kind, d."status"::text AS status, count(*)::int AS n
      FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      GROUP BY 1, 2`,
    prisma.webhook.groupBy({
      by: ['kind'],
      where: { enabled: false, disabledReason: { not: 'disabled_by_admin' } },
      _count: { _all: true },
    }),
  ]);
  const count = new Map(deliveries.map((r) => [`${r.kind}/${r.status}`, r.n]));
  const off = new Map(disabled.map((r) => [String(r.kind), r._count._all]));
  for (const kind of KINDS) {
    for (const status of STATUSES) {
      m.webhookDeliveries.set({ kind, status }, count.get(`${kind}/${status}`) ?? 0);
    }
    m.webhooksDisabled.set({ kind }, off.get(kind) ?? 0);
  }
}
