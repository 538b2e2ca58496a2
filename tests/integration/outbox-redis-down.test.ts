import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { enqueueInTx } from '@/lib/server/queue/outbox';
import { JobQueue, QueueUnavailableError } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker } from '@/lib/server/queue/worker';
import { closeTestDb, testDb } from './helpers/db';
import {
  CLOSED_REDIS_URL,
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

const ROWS = 12;

// Unreachable Redis makes `queue.add()` wait forever: the app must keep
// serving and the work must wait in the outbox (lib/server/queue/connection.ts).
describe('outbox while Redis is unreachable', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('keeps rows waiting without hanging, then relays each exactly once when Redis returns', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const tag = uniqueTag('down');
    const keys = Array.from({ length: ROWS }, (_, i) => `${tag}.${i}`);
    await db.$transaction(async (tx) => {
      for (const key of keys) {
        await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
      }
    });

    // Redis down: the same queue name, at an address where nothing listens.
    const real = testQueueTarget();
    const down = { ...real, redisUrl: CLOSED_REDIS_URL };
    const deadQueue = new JobQueue(down, undefined, log);
    const deadRelay = new OutboxRelay({ db, queue: deadQueue, log, addTimeoutMs: 300 });
    cleanups.push(async () => {
      await deadRelay.stop();
      await deadQueue.close();
    });

    let t = Date.now();
    const offline = await deadRelay.runOnce();
    expect(Date.now() - t).toBeLessThan(1_000);
    expect(offline).toMatchObject({ offline: true, dispatched: 0 });

    // A direct add is bounded too: it fails with a stable code instead of waiting.
    t = Date.now();
    const err = await deadQueue
      .add('audit.ping', { note: 'x' }, `${tag}.direct`, 300)
      .catch((e) => e);
    expect(Date.now() - t).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(QueueUnavailableError);
    expect(err.code).toBe('queue_unavailable');

    const waiting = await db.outboxEvent.findMany({ where: { dedupeKey: { in: keys } } });
    expect(waiting).toHaveLength(ROWS);
    expect(waiting.every((r) => r.dispatchedAt === null)).toBe(true);

    // Redis returns: a relay and a worker on the real server.
    const queue = new JobQueue(real, undefined, log);
    const relay = new OutboxRelay({ db, queue, log, batchSize: 5 });
    const worker = startJobWorker({ target: real, db, heartbeatMs: 0, log });
    cleanups.push(async () => {
      await relay.stop();
      await worker.close();
      await queue.close();
      await obliterateTarget(real);
    });
    await waitFor(async () => queue.online());
    // Relay more than once (and concurrently with itself): still one job per row.
    await Promise.all([relay.runOnce(), relay.runOnce()]);
    await relay.runOnce();

    const after = await db.outboxEvent.findMany({ where: { dedupeKey: { in: keys } } });
    expect(after.every((r) => r.dispatchedAt !== null)).toBe(true);
    await waitFor(async () => {
      const n = await db.auditEvent.count({
        where: { action: 'audit.ping', targetId: { in: keys } },
      });
      return n === ROWS;
    });
    // Let any duplicate surface before counting per row.
    await new Promise((r) => setTimeout(r, 500));
    const perKey = await db.auditEvent.groupBy({
      by: ['targetId'],
      where: { action: 'audit.ping', targetId: { in: keys } },
      _count: { _all: true },
    });
    expect(perKey).toHaveLength(ROWS);
    expect(perKey.every((g) => g._count._all === 1)).toBe(true);
    // Count this test's jobs only: the relay also moves rows other test files
    // left in the shared database, which is fine and not what is asserted here.
    const ours = (jobs: { id?: string }[]) => jobs.filter((j) => keys.includes(j.id ?? ''));
    const lane = queue.queueFor('audit.ping');
    expect(ours(await lane.getJobs(['completed']))).toHaveLength(ROWS);
    expect(ours(await lane.getJobs(['failed']))).toHaveLength(0);
  });

  it('a job added again under the same id (a timed-out add that landed) runs once', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    const queue = new JobQueue(target, undefined, log);
    const worker = startJobWorker({ target, db, heartbeatMs: 0, log });
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    const key = uniqueTag('late');
    await queue.add('audit.ping', { note: 'late' }, key);
    await waitFor(async () => (await db.auditEvent.count({ where: { targetId: key } })) === 1);
    await queue.add('audit.ping', { note: 'late' }, key);
    await new Promise((r) => setTimeout(r, 500));
    expect(await db.auditEvent.count({ where: { targetId: key } })).toBe(1);
  });
});
