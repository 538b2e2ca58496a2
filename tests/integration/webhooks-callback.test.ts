import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { redeliver } from '@/lib/server/webhooks/deliveries';
import { listDeliveries, webhookAlerts } from '@/lib/server/webhooks/delivery-log';
import { setWebhookPolicy } from '@/lib/server/webhooks/policy';
import { verifyWebhook } from '@/lib/server/webhooks/signing';
import {
  rotateWebhookSecret,
  saveWebhook,
  setWebhookEnabled,
} from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { CLOSED_REDIS_URL, testQueueTarget, waitFor } from './helpers/queue';
import { decidedTicket, makeHost, Receiver, startPipeline } from './webhooks-fixtures';

// Receivers listen on loopback over http: the development flag the guard
// requires, set before any module reads the configuration.
vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

const cleanups: (() => Promise<void>)[] = [];
let n = 0;

async function setup(respond?: ConstructorParameters<typeof Receiver>[0]) {
  const receiver = new Receiver(respond);
  await receiver.start();
  cleanups.push(() => receiver.stop());
  const hostId = await makeHost(`cb-host-${++n}`);
  const saved = await saveWebhook({ hostId, kind: 'callback', url: `${receiver.url}/hook` }, null);
  return { receiver, hostId, secret: saved.secret as string, webhookId: saved.webhook.id };
}

describe('callback webhooks (issue 6)', () => {
  beforeAll(() => setWebhookPolicy({ retryDelaysMs: [30, 30, 30, 30, 30, 30, 30] }));
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    setWebhookPolicy({ retryDelaysMs: [30, 30, 30, 30, 30, 30, 30] });
  });
  afterAll(async () => {
    setWebhookPolicy(null);
    await closeTestDb();
  });

  it('a decision is POSTed once, signed, with the resolution, ticket id, request id and identity', async () => {
    const { receiver, hostId, secret } = await setup();
    expect(secret).toMatch(/^whsec_/);
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    const ticketId = await decidedTicket(hostId, { requestId: 'req-42' });
    await waitFor(async () => receiver.received.length === 1);
    const [r] = receiver.received;
    expect(verifyWebhook(secret, r.headers, r.body)).toEqual({ ok: true });
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({
      type: 'approval.resolved',
      data: {
        ticket_id: ticketId,
        request_id: 'req-42',
        status: 'approved',
        resolution: { outcome: 'approve', verdict: { decision: 'allow' } },
      },
    });
    expect(body.data.resolution.context_identity).toBe(body.data.context_identity);
    const [row] = await waitFor(async () => {
      const rows = await listDeliveries(hostId);
      return rows[0]?.status === 'delivered' ? rows : null;
    });
    expect(row).toMatchObject({ ticketId, attempts: 1, lastStatusCode: 200, lastError: null });
    expect(row.messageId).toBe(r.headers['webhook-id']);
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('a flaky receiver (fail, fail, succeed): one logical delivery, same webhook-id, 3 attempts', async () => {
    const { receiver, hostId, secret } = await setup((_r, i) => ({ status: i < 3 ? 503 : 204 }));
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    await decidedTicket(hostId);
    await waitFor(async () => (await listDeliveries(hostId))[0]?.status === 'delivered');
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    // Every attempt is freshly signed and verifies.
    for (const r of receiver.received)
      expect(verifyWebhook(secret, r.headers, r.body).ok).toBe(true);
    const rows = await listDeliveries(hostId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 3, status: 'delivered', lastStatusCode: 204 });
    const hook = await (await testDb()).webhook.findFirstOrThrow({ where: { hostId } });
    expect(hook.consecutiveFailures).toBe(0);
  });

  it('gives up after the last attempt, and redelivery sends the same webhook-id again', async () => {
    setWebhookPolicy({ retryDelaysMs: [20, 20] });
    let up = false;
    const { receiver, hostId } = await setup(() => ({ status: up ? 200 : 500 }));
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    await decidedTicket(hostId);
    const [dead] = await waitFor(async () => {
      const rows = await listDeliveries(hostId);
      return rows[0]?.status === 'dead' ? rows : null;
    });
    expect(dead).toMatchObject({ attempts: 3, lastStatusCode: 500, lastError: 'http_500' });
    expect(receiver.received).toHaveLength(3);
    up = true;
    await redeliver(hostId, dead.id);
    await waitFor(async () => (await listDeliveries(hostId))[0]?.status === 'delivered');
    expect(receiver.received).toHaveLength(4);
    expect(receiver.received[3].headers['webhook-id']).toBe(dead.messageId);
  });

  it('disables the endpoint after N consecutive failures and tells admins (audit event, host alert)', async () => {
    setWebhookPolicy({ retryDelaysMs: [10, 10, 10, 10], disableAfterFailures: 3 });
    const { receiver, hostId } = await setup(() => ({ status: 500 }));
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    await decidedTicket(hostId);
    const alerts = await waitFor(async () => {
      const a = await webhookAlerts(hostId);
      return a.length ? a : null;
    });
    expect(alerts[0]).toMatchObject({ kind: 'callback' });
    expect(alerts[0].disabledReason).toContain('3 consecutive failed deliveries');
    const prisma = await testDb();
    const events = await prisma.auditEvent.findMany({
      where: { action: 'webhook.disabled', targetId: hostId },
    });
    expect(events).toHaveLength(1);
    // The attempt after disabling sends nothing: the delivery is parked as dead.
    await waitFor(async () => (await listDeliveries(hostId))[0]?.status === 'dead');
    expect(receiver.received).toHaveLength(3);
    // A later decision is not sent either, but logged for redelivery.
    await decidedTicket(hostId);
    const rows = await waitFor(async () => {
      const r = await listDeliveries(hostId);
      return r.length === 2 ? r : null;
    });
    expect(rows[0]).toMatchObject({ status: 'dead', lastError: 'webhook_disabled', attempts: 0 });
    expect(receiver.received).toHaveLength(3);
    // Re-enabling clears the streak and the alert.
    await setWebhookEnabled(hostId, 'callback', true, null);
    expect(await webhookAlerts(hostId)).toEqual([]);
  });

  it('a rotated secret: both signatures during the overlap, only the new one after', async () => {
    const { receiver, hostId, secret: oldSecret } = await setup();
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    const newSecret = await rotateWebhookSecret(hostId, 'callback', null, 60_000);
    expect(newSecret).not.toBe(oldSecret);
    await decidedTicket(hostId);
    await waitFor(async () => receiver.received.length === 1);
    const during = receiver.received[0];
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(oldSecret, during.headers, during.body).ok).toBe(true);
    expect(verifyWebhook(newSecret, during.headers, during.body).ok).toBe(true);

    const newest = await rotateWebhookSecret(hostId, 'callback', null, 0);
    await decidedTicket(hostId);
    await waitFor(async () => receiver.received.length === 2);
    const after = receiver.received[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWebhook(newest, after.headers, after.body).ok).toBe(true);
    expect(verifyWebhook(newSecret, after.headers, after.body)).toMatchObject({
      reason: 'signature_invalid',
    });
    // Secrets are encrypted at rest.
    const stored = await (await testDb()).webhookSecret.findMany();
    expect(stored.every((s) => s.secret.startsWith('enc1:') && !s.secret.includes('whsec_'))).toBe(
      true,
    );
  });

  it('does not follow a redirect: the attempt fails and the target is never hit', async () => {
    setWebhookPolicy({ retryDelaysMs: [] });
    const { receiver, hostId } = await setup((r) =>
      r.path === '/hook' ? { status: 307, body: '' } : { status: 200 },
    );
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    await decidedTicket(hostId);
    const [row] = await waitFor(async () => {
      const rows = await listDeliveries(hostId);
      return rows[0]?.status === 'dead' ? rows : null;
    });
    expect(row).toMatchObject({ lastError: 'redirect_refused', lastStatusCode: 307 });
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('Redis down during decisions: rows wait; after it returns every callback arrives exactly once', async () => {
    const { receiver, hostId, secret } = await setup();
    const prisma = await testDb();
    const down = { ...testQueueTarget(), redisUrl: CLOSED_REDIS_URL };
    const deadQueue = new JobQueue(down);
    const deadRelay = new OutboxRelay({ db: prisma, queue: deadQueue, addTimeoutMs: 200 });
    cleanups.push(async () => {
      await deadRelay.stop();
      await deadQueue.close();
    });
    const tickets: string[] = [];
    for (let i = 0; i < 20; i++) {
      tickets.push(await decidedTicket(hostId, { status: i % 2 ? 'rejected' : 'expired' }));
      if (i % 5 === 0)
        expect(await deadRelay.runOnce()).toMatchObject({ offline: true, dispatched: 0 });
    }
    const waiting = await prisma.outboxEvent.count({
      where: { kind: 'approvals.resolved', dispatchedAt: null },
    });
    expect(waiting).toBe(20);
    expect(receiver.received).toHaveLength(0);

    // Redis is back: two relays race over the same rows.
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    const extra = new OutboxRelay({ db: prisma, queue: pipe.queue, intervalMs: 40 });
    extra.start();
    cleanups.push(() => extra.stop());
    await waitFor(async () => {
      const rows = await listDeliveries(hostId);
      return rows.length === 20 && rows.every((r) => r.status === 'delivered');
    }, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(20);
    const got = receiver.received.map((r) => JSON.parse(r.body).data.ticket_id).sort();
    expect(got).toEqual([...tickets].sort());
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(20);
    for (const r of receiver.received)
      expect(verifyWebhook(secret, r.headers, r.body).ok).toBe(true);
  });
});
