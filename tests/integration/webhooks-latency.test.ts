import { randomUUID } from 'node:crypto';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebhookAlerts } from '@/app/hosts/[id]/webhooks/webhook-alerts';
import { checkpointMetrics } from '@/lib/server/metrics/registry';
import { setWebhookGauges } from '@/lib/server/metrics/webhooks';
import { recordAttempt } from '@/lib/server/webhooks/attempts';
import { webhookLatency } from '@/lib/server/webhooks/latency';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeHost } from './webhooks-fixtures';

/**
 * Issue 17 item 3: a slow receiver fails nothing, so the failure streak never
 * showed it. Its latency is on the host page (p50/p95, flagged above
 * WEBHOOK_SLOW_MS = 2000 ms by default) and in the metrics.
 */

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

async function hookWithLatencies(kind: 'callback' | 'resolver', latencies: number[], ageMs = 0) {
  const prisma = await testDb();
  const hostId = await makeHost(`latency-${kind}-${randomUUID().slice(0, 8)}`);
  // No self-test for a callback; the resolver's would need a live service.
  const hook = await prisma.webhook.create({
    data: { hostId, kind, url: 'https://example.test/hook' },
    select: { id: true },
  });
  const createdAt = new Date(Date.now() - ageMs);
  await prisma.webhookDelivery.createMany({
    data: latencies.map((latencyMs) => ({
      webhookId: hook.id,
      messageId: `msg_${randomUUID()}`,
      eventType: 'test',
      payload: {},
      status: 'delivered' as const,
      attempts: 1,
      latencyMs,
      createdAt,
    })),
  });
  return { hostId, webhookId: hook.id };
}

describe('slow receivers (issue 17)', () => {
  beforeEach(truncateAll);
  afterAll(closeTestDb);

  it('flags a webhook whose recent p95 is above WEBHOOK_SLOW_MS, with p50 and p95', async () => {
    // 18 quick answers, two timeouts at 5 s: p50 fast, p95 slow.
    const { hostId, webhookId } = await hookWithLatencies('callback', [
      ...Array.from({ length: 18 }, () => 100),
      5_000,
      5_000,
    ]);
    const [l] = await webhookLatency(hostId);
    expect(l).toMatchObject({ webhookId, kind: 'callback', samples: 20, p50Ms: 100, slow: true });
    expect(l.p95Ms).toBeGreaterThan(2_000);
    // The host page's notice, with the figures.
    const html = renderToStaticMarkup(await WebhookAlerts({ hostId, link: true }));
    expect(html).toContain('data-testid="slow-receiver"');
    expect(html).toContain(
      `Slow receiver: the callback webhook answered in 100 ms at p50 and ${l.p95Ms} ms at`,
    );
    expect(html).toContain(`href="/hosts/${hostId}/webhooks/deliveries"`);
  });

  it('does not flag a fast receiver, one with too few samples, or old deliveries past the last 50', async () => {
    const fast = await hookWithLatencies(
      'callback',
      Array.from({ length: 20 }, () => 300),
    );
    expect((await webhookLatency(fast.hostId))[0]).toMatchObject({ slow: false, p95Ms: 300 });
    expect(renderToStaticMarkup(await WebhookAlerts({ hostId: fast.hostId }))).toBe('');
    const few = await hookWithLatencies('callback', [4_000, 4_000]);
    expect((await webhookLatency(few.hostId))[0]).toMatchObject({ samples: 2, slow: false });
    // Slow two hours ago, fast in the last 50 since: not flagged any more.
    const recovered = await hookWithLatencies('resolver', [4_000, 4_000, 4_000], 2 * 3_600_000);
    const prisma = await testDb();
    await prisma.webhookDelivery.createMany({
      data: Array.from({ length: 50 }, () => ({
        webhookId: recovered.webhookId,
        messageId: `msg_${randomUUID()}`,
        eventType: 'test',
        payload: {},
        attempts: 1,
        latencyMs: 50,
      })),
    });
    expect((await webhookLatency(recovered.hostId))[0]).toMatchObject({
      samples: 50,
      slow: false,
    });
  });

  it('observes each attempt in the duration histogram and sets the p95 gauge from PostgreSQL', async () => {
    const prisma = await testDb();
    const hostId = await makeHost('latency-metrics');
    const saved = await saveWebhook(
      { hostId, kind: 'callback', url: 'http://127.0.0.1:9/hook' },
      null,
    );
    const delivery = await prisma.webhookDelivery.create({
      data: {
        webhookId: saved.webhook.id,
        messageId: `msg_${randomUUID()}`,
        eventType: 't',
        payload: {},
      },
    });
    const histogram = async () => {
      const m = await checkpointMetrics().webhookAttemptDuration.get();
      const v = m.values as {
        labels: Record<string, unknown>;
        value: number;
        metricName?: string;
      }[];
      const of = (suffix: string, le?: number) =>
        v.find(
          (x) =>
            x.metricName === `checkpoint_webhook_attempt_duration_seconds${suffix}` &&
            x.labels.kind === 'callback' &&
            (le === undefined || x.labels.le === le),
        )?.value ?? 0;
      return { count: of('_count'), under3s: of('_bucket', 3) };
    };
    const before = await histogram();
    await recordAttempt(prisma, {
      deliveryId: delivery.id,
      webhookId: saved.webhook.id,
      hostId,
      attempt: 1,
      retry: false,
      result: { ok: false, latencyMs: 4_500, error: 'timeout' },
    });
    const after = await histogram();
    expect(after.count).toBe(before.count + 1);
    expect(after.under3s).toBe(before.under3s); // 4.5 s lands above the 3 s bucket

    await setWebhookGauges(prisma);
    const gauge = await checkpointMetrics().webhookLatencyP95.get();
    const p95 = gauge.values.find((x) => x.labels.kind === 'callback')?.value;
    expect(p95).toBeCloseTo(4.5, 3);
  });
});
