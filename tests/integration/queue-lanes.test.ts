import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobDefinitions } from '@/lib/server/jobs/definitions';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { withHandler } from '@/lib/server/jobs/runnable';
import { enqueueInTx } from '@/lib/server/queue/outbox';
import { JobQueue } from '@/lib/server/queue/queues';
import { reconcileDispatched } from '@/lib/server/queue/reconcile';
import { readQueueStatus } from '@/lib/server/queue/status';
import { startJobWorker } from '@/lib/server/queue/worker';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import {
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

/**
 * Issue 17 item 3: each kind of job has its own queue and worker slots
 * (lanes). Before, one queue with four slots ran everything, so slow
 * callbacks delayed expiries.
 */

const cleanups: (() => Promise<void>)[] = [];

function queueAt(target = testQueueTarget()) {
  const { log } = capturingLogger();
  const queue = new JobQueue(target, undefined, log);
  cleanups.push(async () => {
    await queue.close();
    await obliterateTarget(target);
  });
  return { queue, target, log };
}

describe('job lanes (issue 17)', () => {
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('an approvals.expire job is not delayed by a full callbacks lane', async () => {
    const db = await testDb();
    const { queue, target, log } = queueAt();
    const expiredAt = new Map<string, number>();
    const registry = {
      ...jobRegistry,
      // Callbacks that hold their slot for 2 s, like a slow receiver without a host limit.
      'webhooks.deliver': withHandler(jobDefinitions['webhooks.deliver'], async () => {
        await new Promise((r) => setTimeout(r, 2_000));
      }),
      'approvals.expire': withHandler(jobDefinitions['approvals.expire'], async (p) => {
        expiredAt.set(p.ticketId, Date.now());
      }),
    };
    const worker = startJobWorker({
      target,
      db,
      registry,
      heartbeatMs: 0,
      log,
      concurrency: { callbacks: 2 },
    });
    cleanups.push(() => worker.close());
    await waitFor(async () => queue.online());

    for (let i = 0; i < 6; i++) {
      const deliveryId = randomUUID();
      await queue.add('webhooks.deliver', { deliveryId, attempt: 1, manual: false }, deliveryId);
    }
    // Both callback slots busy, four callbacks waiting behind them.
    await waitFor(async () => {
      const lanes = await queue.laneCounts(1_000);
      const callbacks = lanes.find((l) => l.queue === 'callbacks');
      return callbacks?.active === 2 && callbacks.waiting === 4;
    });

    const ticketId = randomUUID();
    const addedAt = Date.now();
    await queue.add('approvals.expire', { ticketId }, uniqueTag('expire'));
    await waitFor(async () => expiredAt.has(ticketId), 10_000, 10);
    // One queue would have run it after the six callbacks (≈ 6 s).
    expect((expiredAt.get(ticketId) as number) - addedAt).toBeLessThan(1_000);
    const callbacks = (await queue.laneCounts(1_000)).find((l) => l.queue === 'callbacks');
    expect((callbacks?.active ?? 0) + (callbacks?.waiting ?? 0)).toBeGreaterThan(0);
  });

  it('a job an earlier version left in the single queue still runs, and is not copied to its lane', async () => {
    const db = await testDb();
    const { queue, target, log } = queueAt();
    const key = uniqueTag('legacy');
    // What an earlier version leaves: the row handed over, the job in the one queue.
    await enqueueInTx(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    await db.outboxEvent.update({ where: { dedupeKey: key }, data: { dispatchedAt: new Date() } });
    const legacy = new Queue(target.queueName, {
      connection: { url: target.redisUrl },
      prefix: target.prefix,
    });
    legacy.on('error', () => {});
    cleanups.push(() => legacy.close());
    await legacy.add('audit.ping', { note: key }, { jobId: key, delay: 800 });
    await waitFor(async () => queue.online());

    // The lost-job check finds it there: live, not lost.
    const check = await reconcileDispatched({
      db,
      queue,
      leaseMs: 0,
      batchSize: 100,
      timeoutMs: 1_000,
      log,
    });
    expect(check).toMatchObject({ checked: 1, live: 1, redispatched: 0 });
    expect(await queue.jobState(key, 'audit.ping')).toEqual({ state: 'delayed' });

    const worker = startJobWorker({ target, db, heartbeatMs: 0, log });
    cleanups.push(() => worker.close());
    await waitFor(
      async () => (await db.outboxEvent.findUnique({ where: { dedupeKey: key } }))?.settledAt,
    );
    expect(await db.auditEvent.count({ where: { targetId: key } })).toBe(1);
    expect(await queue.queueFor('audit.ping').getJob(key)).toBeUndefined();
    expect(await queue.jobState(key, 'audit.ping')).toEqual({ state: 'completed' });
  });

  it('status counts every lane, and each lane on its own', async () => {
    const db = await testDb();
    const { queue } = queueAt();
    await waitFor(async () => queue.online());
    await queue.add('webhooks.deliver', { deliveryId: randomUUID(), attempt: 1 }, uniqueTag('c'));
    await queue.add('slack.post', { ticketId: randomUUID() }, uniqueTag('s'));
    await queue.add('approvals.expire', { ticketId: randomUUID() }, uniqueTag('e'));
    await queue
      .queueFor('approvals.expire')
      .add('approvals.expire', { ticketId: randomUUID() }, { delay: 3_600_000 });
    const status = await readQueueStatus({ queue, db });
    expect(status).toMatchObject({ redis: 'online', waiting: 3 });
    expect(status.scheduled).toBeGreaterThanOrEqual(1);
    const lane = (name: string) => status.lanes?.find((l) => l.queue === name);
    expect(lane('callbacks')).toMatchObject({ waiting: 1, delayed: 0 });
    expect(lane('slack')).toMatchObject({ waiting: 1 });
    expect(lane('expiry')).toMatchObject({ waiting: 1, delayed: 1 });
    expect(lane('fanout')).toMatchObject({ waiting: 0 });
    expect(lane('legacy')).toMatchObject({ waiting: 0 });
    expect(status.lanes).toHaveLength(7);
  });
});
