import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { type JobDefinitions, jobDefinitions } from '@/lib/server/jobs/definitions';
import type { JobRegistry } from '@/lib/server/jobs/handlers';
import { withHandler } from '@/lib/server/jobs/runnable';
import { enqueue } from '@/lib/server/queue/outbox';
import { JobQueue, type QueueTarget } from '@/lib/server/queue/queues';
import type { ReconcileResult } from '@/lib/server/queue/reconcile';
import { OutboxRelay } from '@/lib/server/queue/relay';
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
 * The relay's check for lost jobs leaves jobs Redis still holds alone: a job
 * retrying with BullMQ's backoff is not copied, a job that failed for good
 * is not retried forever, a completed job whose settle write was lost is
 * settled without running again.
 */

const cleanups: (() => Promise<void>)[] = [];

/** audit.ping with its own retry policy and a handler that fails its first `failures` runs. */
function flakyPing(attempts: number, failures: number) {
  const runs: number[] = [];
  const def = { ...jobDefinitions['audit.ping'], attempts, backoffMs: 300 };
  const definitions: JobDefinitions = { 'audit.ping': def };
  const registry: JobRegistry = {
    'audit.ping': withHandler(def, async (_p, ctx) => {
      runs.push(ctx.attempt);
      if (ctx.attempt <= failures) throw new Error(`boom ${ctx.attempt}`);
    }),
  };
  return { runs, definitions, registry };
}

async function pipeline(db: PrismaClient, job: ReturnType<typeof flakyPing>) {
  const target: QueueTarget = testQueueTarget();
  const { log, lines } = capturingLogger();
  const queue = new JobQueue(target, job.definitions, log);
  // No timer: the test runs the checks itself and adds up what they found.
  const relay = new OutboxRelay({ db, queue, log, reconcileIntervalMs: 0, reconcileLeaseMs: 100 });
  const worker = startJobWorker({ target, db, registry: job.registry, heartbeatMs: 0, log });
  cleanups.push(async () => {
    await relay.stop();
    await worker.close();
    await queue.close();
    await obliterateTarget(target);
  });
  await waitFor(async () => queue.online());
  return { queue, relay, lines };
}

async function reconcileFor(relay: OutboxRelay, ms: number): Promise<ReconcileResult> {
  const total: ReconcileResult = {
    checked: 0,
    redispatched: 0,
    settled: 0,
    live: 0,
    offline: false,
  };
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await relay.reconcileOnce();
    total.checked += r.checked;
    total.redispatched += r.redispatched;
    total.settled += r.settled;
    total.live += r.live;
    await new Promise((res) => setTimeout(res, 120));
  }
  return total;
}

const row = async (db: PrismaClient, key: string) =>
  db.outboxEvent.findUniqueOrThrow({ where: { dedupeKey: key } });

describe('the check for lost jobs leaves jobs Redis still has alone', () => {
  // Earlier files' unsettled rows would be checked against this file's queues.
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('a job retrying with backoff is checked while delayed and never copied', async () => {
    const db = await testDb();
    const job = flakyPing(5, 2);
    const { relay, lines } = await pipeline(db, job);
    const key = uniqueTag('backoff');
    await enqueue(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    await relay.runOnce();
    await waitFor(async () => job.runs.length >= 1);
    // Backoff 300 ms then 600 ms: well over the 100 ms lease, checked many times.
    const found = await reconcileFor(relay, 1_500);
    expect(found.live).toBeGreaterThanOrEqual(2);
    expect(found.redispatched).toBe(0);
    await waitFor(async () => (await row(db, key)).settledAt);
    await reconcileFor(relay, 400);
    expect(job.runs).toEqual([1, 2, 3]);
    expect(lines.some((l) => l.msg === 'job missing from Redis: dispatched again')).toBe(false);
    expect((await row(db, key)).lastError).toBeNull();
  });

  it('a job that failed its last attempt is settled with its reason, not run again', async () => {
    const db = await testDb();
    const job = flakyPing(2, 99);
    const { relay } = await pipeline(db, job);
    const key = uniqueTag('fails');
    await enqueue(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    await relay.runOnce();
    const settled = await waitFor(async () => {
      const r = await row(db, key);
      return r.settledAt ? r : null;
    });
    expect(settled.lastError).toBe('job_failed: boom 2');
    const found = await reconcileFor(relay, 500);
    expect(found.redispatched).toBe(0);
    expect(job.runs).toEqual([1, 2]);
  });

  it('a completed job whose settle write was lost is settled from Redis, not run again', async () => {
    const db = await testDb();
    const job = flakyPing(1, 0);
    const { relay, queue } = await pipeline(db, job);
    const key = uniqueTag('done');
    await enqueue(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    await relay.runOnce();
    await waitFor(async () => (await row(db, key)).settledAt);
    await waitFor(async () => (await queue.jobState(key, 'audit.ping')).state === 'completed');
    await db.outboxEvent.update({
      where: { dedupeKey: key },
      data: { settledAt: null, dispatchedAt: new Date(Date.now() - 60_000) },
    });
    const r = await relay.reconcileOnce();
    expect(r).toMatchObject({ settled: 1, redispatched: 0 });
    expect((await row(db, key)).settledAt).not.toBeNull();
    await new Promise((res) => setTimeout(res, 300));
    expect(job.runs).toEqual([1]);
  });
});
