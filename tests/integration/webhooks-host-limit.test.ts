import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliverDedupeKey } from '@/lib/server/jobs/definitions';
import { startJobWorker } from '@/lib/server/queue/worker';
import { HostSlots } from '@/lib/server/webhooks/host-slots';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { uniqueTag, waitFor } from './helpers/queue';
import { testRedis, testRedisClient } from './helpers/redis';
import {
  decidedTicket,
  makeHost,
  Receiver,
  type Responder,
  startPipeline,
} from './webhooks-fixtures';

/**
 * Issue 17 item 3: a slow receiver takes at most WEBHOOK_HOST_CONCURRENCY
 * (2) outbound slots, across every worker, and a job refused a slot goes
 * back to delayed instead of waiting in a worker slot. Before, one host
 * answering in 4.5 s delayed another host's callbacks by 60 s.
 */

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

const cleanups: (() => Promise<void>)[] = [];

async function callbackHost(name: string, respond?: Responder) {
  const receiver = new Receiver(respond);
  await receiver.start();
  cleanups.push(() => receiver.stop());
  const hostId = await makeHost(name);
  await saveWebhook({ hostId, kind: 'callback', url: `${receiver.url}/hook` }, null);
  return { receiver, hostId };
}

/** A receiver answering after `delayMs` that tracks how many requests it holds at once. */
function countingResponder(delayMs: number) {
  const seen = { now: 0, max: 0 };
  const respond: Responder = () => {
    seen.now += 1;
    seen.max = Math.max(seen.max, seen.now);
    // Registered before the receiver's own send timer: the count drops before the answer leaves.
    setTimeout(() => {
      seen.now -= 1;
    }, delayMs);
    return { status: 200, body: 'ok', delayMs };
  };
  return { seen, respond };
}

async function deliveries(hostId: string) {
  const prisma = await testDb();
  return prisma.webhookDelivery.findMany({ where: { webhook: { hostId } } });
}

describe('per-host limit of outbound webhook calls (issue 17)', () => {
  beforeEach(truncateAll);
  afterEach(async () => {
    // Receivers first (pushed last): their in-flight requests end, so the workers close at once.
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('a slow host does not delay a fast host’s callback beyond 1 s from when it is due (SLO)', async () => {
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    const slowCalls = countingResponder(4_500);
    const slow = await callbackHost('slow', slowCalls.respond);
    const fast = await callbackHost('fast');

    for (let i = 0; i < 10; i++) await decidedTicket(slow.hostId);
    // The slow host holds its two slots, and its other eight callbacks are queued.
    await waitFor(async () => (await deliveries(slow.hostId)).length === 10);
    await waitFor(async () => slow.receiver.received.length >= 2);
    await new Promise((r) => setTimeout(r, 300));

    await decidedTicket(fast.hostId);
    await waitFor(async () => fast.receiver.received.length === 1, 10_000, 10);
    const arrivedAt = fast.receiver.received[0].at;
    const [delivery] = await deliveries(fast.hostId);
    const prisma = await testDb();
    const job = await prisma.outboxEvent.findUniqueOrThrow({
      where: { dedupeKey: deliverDedupeKey(delivery.id, 1) },
    });
    const lateMs = arrivedAt - job.createdAt.getTime();
    // The SLO the issue asks for; measured ≈ 50–150 ms on an idle machine.
    expect(lateMs).toBeLessThan(1_000);
    // It was measured under contention: the slow host still had work queued…
    expect(slow.receiver.received.length).toBeLessThan(10);
    // …and never had more than its two calls in flight.
    expect(slowCalls.seen.max).toBe(2);
  });

  it('two worker instances together keep a host at its limit, and waiting is no attempt', async () => {
    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    const second = startJobWorker({
      target: pipe.target,
      db: await testDb(),
      heartbeatMs: 0,
      concurrency: 8,
    });
    cleanups.push(() => second.close());
    const calls = countingResponder(400);
    const host = await callbackHost('limited', calls.respond);

    for (let i = 0; i < 8; i++) await decidedTicket(host.hostId);
    await waitFor(async () => {
      const rows = await deliveries(host.hostId);
      return rows.length === 8 && rows.every((d) => d.status === 'delivered');
    }, 30_000);
    expect(calls.seen.max).toBe(2);
    expect(host.receiver.received).toHaveLength(8);
    // Being sent back to wait for a slot is neither a recorded attempt nor a failure.
    for (const d of await deliveries(host.hostId)) {
      expect(d).toMatchObject({ attempts: 1, status: 'delivered', lastError: null });
    }
    expect(await second.hostSlots.inFlight(host.hostId, 'callback')).toBe(0);
  });

  it('the leases of a killed worker expire, and its slots come back', async () => {
    const killed = testRedisClient();
    const live = testRedisClient();
    cleanups.push(async () => {
      killed.disconnect();
      await live.quit();
    });
    const prefix = `${testRedis().prefix}${uniqueTag('slots')}`;
    const hostId = crypto.randomUUID();
    const a = new HostSlots(killed, { prefix, limit: 2, marginMs: 0 });
    const b = new HostSlots(live, { prefix, limit: 2, marginMs: 0 });

    expect(await a.acquire(hostId, 'callback', 800)).toEqual(expect.any(String));
    expect(await a.acquire(hostId, 'callback', 800)).toEqual(expect.any(String));
    const takenAt = Date.now();
    // The worker dies mid-call: nothing releases its two leases.
    killed.disconnect();
    expect(await b.acquire(hostId, 'callback', 800)).toBeNull();
    expect(await b.inFlight(hostId, 'callback')).toBe(2);
    // Another host is not affected.
    expect(await b.acquire(crypto.randomUUID(), 'callback', 800)).toEqual(expect.any(String));
    // The set itself expires too, so an idle host leaves no key behind.
    expect(await live.pttl(b.key(hostId, 'callback'))).toBeGreaterThan(0);

    const lease = await waitFor(() => b.acquire(hostId, 'callback', 800), 5_000, 50);
    expect(Date.now() - takenAt).toBeGreaterThanOrEqual(700);
    expect(await b.inFlight(hostId, 'callback')).toBe(1);
    await b.release(hostId, 'callback', lease);
    expect(await b.inFlight(hostId, 'callback')).toBe(0);
  });
});
