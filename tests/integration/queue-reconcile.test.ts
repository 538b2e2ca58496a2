import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { approvalExpireDedupeKey, deliverDedupeKey } from '@/lib/server/jobs/definitions';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { JobQueue, type QueueTarget } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { processJob, startJobWorker } from '@/lib/server/queue/worker';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { setWebhookPolicy } from '@/lib/server/webhooks/policy';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { capturingLogger, obliterateTarget, testQueueTarget, waitFor } from './helpers/queue';
import { testRedisClient } from './helpers/redis';
import { pendingTicket } from './queue-reconcile-fixtures';
import { decidedTicket, makeHost, Receiver } from './webhooks-fixtures';

// Receivers listen on loopback over http: the development flag the guard
// requires, set before any module reads the configuration.
vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

/**
 * PostgreSQL is the source of truth for queued work: jobs that Redis loses
 * after the relay handed them over still run, once.
 */

const cleanups: (() => Promise<void>)[] = [];
let n = 0;

/** Every key of the queue, deleted: Redis losing this queue's data (the db is shared, so no FLUSHDB). */
async function wipeQueue(target: QueueTarget): Promise<number> {
  const client = testRedisClient();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(
        cursor,
        'MATCH',
        // The lanes' queues: `<queueName>-<lane>`.
        `${target.prefix}:${target.queueName}*`,
        'COUNT',
        500,
      );
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    await client.quit();
  }
  return deleted;
}

async function callbackHost(respond?: ConstructorParameters<typeof Receiver>[0]) {
  const receiver = new Receiver(respond);
  await receiver.start();
  cleanups.push(() => receiver.stop());
  const hostId = await makeHost(`reconcile-host-${++n}`);
  await saveWebhook({ hostId, kind: 'callback', url: `${receiver.url}/hook` }, null);
  return { receiver, hostId };
}

/** A producer and a relay; started, it checks for lost jobs every 100 ms (lease 150 ms). */
function relayOn(db: PrismaClient, target: QueueTarget, reconcile = true) {
  const { log, lines } = capturingLogger();
  const queue = new JobQueue(target, undefined, log);
  const relay = new OutboxRelay({
    db,
    queue,
    log,
    intervalMs: 50,
    addTimeoutMs: 500,
    reconcileIntervalMs: reconcile ? 100 : 0,
    reconcileLeaseMs: 150,
  });
  cleanups.push(async () => {
    await relay.stop();
    await queue.close();
  });
  if (reconcile) relay.start();
  return { queue, relay, lines };
}

function startWorker(db: PrismaClient, target: QueueTarget) {
  const worker = startJobWorker({ target, db, heartbeatMs: 0, concurrency: 8 });
  cleanups.push(() => worker.close());
  return worker;
}

/** Received requests per webhook-id. */
function countById(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.received) {
    const id = String(r.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function expectEachDeliveredOnce(hostId: string, receiver: Receiver, count: number) {
  const rows = await waitFor(async () => {
    const r = await listDeliveries(hostId);
    return r.length === count && r.every((d) => d.status === 'delivered') ? r : null;
  }, 30_000);
  // A few more reconcile cycles: nothing more may arrive.
  await new Promise((r) => setTimeout(r, 800));
  const counts = countById(receiver);
  expect([...counts.keys()].sort()).toEqual(rows.map((d) => d.messageId).sort());
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  expect(receiver.received).toHaveLength(count);
}

describe('Redis loses queued jobs: PostgreSQL is the source of truth (issue 17)', () => {
  let target: QueueTarget;
  beforeAll(() => setWebhookPolicy({ retryDelaysMs: [30, 30, 30] }));
  beforeEach(async () => {
    await truncateAll();
    target = testQueueTarget();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await obliterateTarget(target);
  });
  afterAll(async () => {
    setWebhookPolicy(null);
    await closeTestDb();
  });

  it('decided tickets, Redis wiped before any worker ran: every callback arrives exactly once', async () => {
    const db = await testDb();
    const { receiver, hostId } = await callbackHost();
    const first = relayOn(db, target, false);
    await waitFor(async () => first.queue.online());

    // Five decisions whose fan-out job is in Redis, five whose fan-out ran
    // (through the worker's own processJob) and whose delivery job is in Redis.
    const tickets: string[] = [];
    for (let i = 0; i < 10; i++) tickets.push(await decidedTicket(hostId));
    const { log } = capturingLogger();
    for (const ticketId of tickets.slice(5)) {
      const job = { name: 'approvals.resolved', data: { ticketId }, attemptsMade: 0 };
      await processJob(
        { ...job, id: `approvals.resolved.${ticketId}` },
        { db, registry: jobRegistry, log },
      );
    }
    expect((await first.relay.runOnce()).offline).toBe(false);
    const owed = await db.outboxEvent.findMany({ where: { settledAt: null } });
    const kinds = owed.map((r) => r.kind);
    expect(kinds.filter((k) => k === 'approvals.resolved')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'webhooks.deliver')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'slack.update')).toHaveLength(5);
    expect(owed.every((r) => r.dispatchedAt !== null)).toBe(true);
    // Fan-out jobs wait prioritized (per-host fairness, queue/relay.ts).
    for (const r of owed)
      expect(['waiting', 'prioritized']).toContain(
        (await first.queue.jobState(r.dedupeKey, r.kind)).state,
      );

    // Redis loses everything; the relay had already marked the rows dispatched.
    expect(await wipeQueue(target)).toBeGreaterThan(0);
    for (const r of owed)
      expect((await first.queue.jobState(r.dedupeKey, r.kind)).state).toBe('unknown');
    await first.relay.stop();

    const { lines } = relayOn(db, target);
    startWorker(db, target);
    await expectEachDeliveredOnce(hostId, receiver, 10);
    const got = receiver.received.map((r) => JSON.parse(r.body).data.ticket_id).sort();
    expect(got).toEqual([...tickets].sort());
    const again = lines.filter((l) => l.msg === 'job missing from Redis: dispatched again');
    expect(again.map((l) => l.jobId).sort()).toEqual(owed.map((r) => r.dedupeKey).sort());
    // Every row is settled now, and those that were lost say so.
    await waitFor(async () => (await db.outboxEvent.count({ where: { settledAt: null } })) === 0);
    const lost = await db.outboxEvent.findMany({ where: { id: { in: owed.map((r) => r.id) } } });
    expect(lost.every((r) => r.lastError === 'job_lost_redispatched')).toBe(true);
  });

  it('pending tickets whose due expiry jobs were wiped still expire, and their callbacks arrive once', async () => {
    const db = await testDb();
    const { receiver, hostId } = await callbackHost();
    const first = relayOn(db, target, false);
    await waitFor(async () => first.queue.online());
    const expiresAt = new Date(Date.now() + 600);
    const tickets: string[] = [];
    for (let i = 0; i < 4; i++) tickets.push(await pendingTicket(hostId, expiresAt));
    // The deadline passes; the relay hands the expiry jobs over; Redis loses them.
    await new Promise((r) => setTimeout(r, 700));
    expect((await first.relay.runOnce()).dispatched).toBe(4);
    expect(await wipeQueue(target)).toBeGreaterThan(0);
    await first.relay.stop();

    relayOn(db, target);
    startWorker(db, target);
    await waitFor(async () => {
      const n = await db.approvalTicket.count({
        where: { id: { in: tickets }, status: 'expired' },
      });
      return n === 4;
    }, 20_000);
    const owed = { dedupeKey: { in: tickets.map((t) => approvalExpireDedupeKey(t)) } };
    // A job settles its row after its work (the expiry signs receipts after its commit).
    await waitFor(
      async () => (await db.outboxEvent.count({ where: { ...owed, settledAt: null } })) === 0,
    );
    const rows = await db.outboxEvent.findMany({ where: owed });
    // The reconciler did it (no expiry sweep runs in this process).
    expect(rows.every((r) => r.lastError === 'job_lost_redispatched' && r.settledAt)).toBe(true);
    await expectEachDeliveredOnce(hostId, receiver, 4);
    for (const r of receiver.received) expect(JSON.parse(r.body).data.status).toBe('expired');
  });

  it('without data loss, reconcile cycles send nothing twice: slow receivers, retries, backoff', async () => {
    const db = await testDb();
    // Slower than the lease (the delivery job is active while checked), and
    // every ticket's first attempt fails (the retry is its own outbox row).
    const seen = new Set<string>();
    const { receiver, hostId } = await callbackHost((r) => {
      const id = String(r.headers['webhook-id']);
      const first = !seen.has(id);
      seen.add(id);
      return { status: first ? 503 : 200, delayMs: 400 };
    });
    const { lines } = relayOn(db, target);
    startWorker(db, target);
    for (let i = 0; i < 6; i++) await decidedTicket(hostId);
    const rows = await waitFor(async () => {
      const r = await listDeliveries(hostId);
      return r.length === 6 && r.every((d) => d.status === 'delivered') ? r : null;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    // 6 failed first attempts and 6 successes, one webhook-id per ticket.
    expect(receiver.received).toHaveLength(12);
    const counts = countById(receiver);
    expect([...counts.keys()].sort()).toEqual(rows.map((d) => d.messageId).sort());
    expect([...counts.values()].every((c) => c === 2)).toBe(true);
    expect(lines.some((l) => l.msg === 'job missing from Redis: dispatched again')).toBe(false);
    // The deliveries' second attempts exist once each.
    const second = await db.outboxEvent.count({
      where: { dedupeKey: { in: rows.map((d) => deliverDedupeKey(d.id, 2)) } },
    });
    expect(second).toBe(6);
    await waitFor(async () => (await db.outboxEvent.count({ where: { settledAt: null } })) === 0);
  });
});
