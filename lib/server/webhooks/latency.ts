import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import { db } from '../db';
import { isUuid } from '../hosts/admin-actor';

/**
 * How fast a host's receivers answer, from the delivery log. A slow
 * receiver does not fail, so the failure streak never shows it; yet it holds
 * its host's outbound slots (webhooks/host-slots.ts) and delays that host's
 * callbacks. The host page flags it (issue 17).
 */

/** The latest deliveries looked at per webhook… */
export const LATENCY_SAMPLE = 50;
/** …or all of the last hour's, whichever are more. */
export const LATENCY_WINDOW_MS = 60 * 60 * 1000;
/** Nothing older than this counts, however quiet the endpoint. */
const LATENCY_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Fewer samples than this say nothing about a receiver. */
export const LATENCY_MIN_SAMPLES = 3;

export interface WebhookLatency {
  webhookId: string;
  kind: 'callback' | 'resolver';
  samples: number;
  p50Ms: number;
  p95Ms: number;
  /** p95 above WEBHOOK_SLOW_MS (with enough samples). */
  slow: boolean;
  slowMs: number;
}

/**
 * Per webhook of the host: p50/p95 of each delivery's latest attempt
 * latency (timeouts count at their timeout) over the last LATENCY_SAMPLE
 * deliveries or the last hour, whichever holds more.
 */
export async function webhookLatency(
  hostId: string,
  prisma?: PrismaClient,
): Promise<WebhookLatency[]> {
  if (!isUuid(hostId)) return [];
  const client = prisma ?? (await db());
  const slowMs = config().WEBHOOK_SLOW_MS;
  const rows = await client.$queryRaw<
    { webhookId: string; kind: 'callback' | 'resolver'; n: number; p50: number; p95: number }[]
  >`
    WITH recent AS (
      SELECT d."webhookId", d."latencyMs", d."createdAt",
             row_number() OVER (PARTITION BY d."webhookId" ORDER BY d."createdAt" DESC) AS rn
        FROM "WebhookDelivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
       WHERE w."hostId" = ${hostId}::uuid
         AND d."attempts" > 0 AND d."latencyMs" IS NOT NULL
         AND d."createdAt" > (now() AT TIME ZONE 'UTC') - ${LATENCY_MAX_AGE_MS} * interval '1 millisecond')
    SELECT r."webhookId"::text AS "webhookId", w."kind"::text AS kind, count(*)::int AS n,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r."latencyMs")::float8 AS p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY r."latencyMs")::float8 AS p95
      FROM recent r JOIN "Webhook" w ON w."id" = r."webhookId"
     WHERE r.rn <= ${LATENCY_SAMPLE}
        OR r."createdAt" > (now() AT TIME ZONE 'UTC') - ${LATENCY_WINDOW_MS} * interval '1 millisecond'
     GROUP BY 1, 2
     ORDER BY 2`;
  return rows.map((r) => ({
    webhookId: r.webhookId,
    kind: r.kind,
    samples: r.n,
    p50Ms: Math.round(r.p50),
    p95Ms: Math.round(r.p95),
    slow: r.n >= LATENCY_MIN_SAMPLES && r.p95 > slowMs,
    slowMs,
  }));
}
