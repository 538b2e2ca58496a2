import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrationStatus, pingDb } from '@/lib/server/db';
import { buildReadiness, getReadiness, readinessHttpStatus } from '@/lib/server/health/readiness';
import { enqueueInTx } from '@/lib/server/queue/outbox';
import { JobQueue } from '@/lib/server/queue/queues';
import { stopBackground } from '@/lib/server/queue/runtime';
import { readQueueStatus } from '@/lib/server/queue/status';
import { closeTestDb, testDb } from './helpers/db';
import {
  CLOSED_REDIS_URL,
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

describe('queue status and readiness', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await stopBackground();
    await closeTestDb();
  });

  function queueAt(redisUrl?: string) {
    const { log } = capturingLogger();
    const target = testQueueTarget(redisUrl);
    const queue = new JobQueue(target, undefined, log);
    cleanups.push(async () => {
      await queue.close();
      if (!redisUrl) await obliterateTarget(target);
    });
    return queue;
  }

  it('reports Redis offline within ~200 ms, with the outbox backlog from the database', async () => {
    const db = await testDb();
    const key = uniqueTag('backlog');
    await enqueueInTx(db, {
      kind: 'audit.ping',
      payload: { note: 'x' },
      dedupeKey: key,
      availableAt: new Date(Date.now() + 3_600_000),
    });
    const queue = queueAt(CLOSED_REDIS_URL);
    const t = Date.now();
    const status = await readQueueStatus({ queue, db });
    expect(Date.now() - t).toBeLessThan(250);
    expect(status.redis).toBe('offline');
    // Due in an hour: scheduled, not waiting.
    expect(status.outboxScheduled).toBeGreaterThanOrEqual(1);
    expect(status.scheduled).toBeGreaterThanOrEqual(1);
    // While offline, the last known counts are kept rather than zeroed.
    const again = await readQueueStatus(
      { queue, db },
      {
        redis: 'online',
        waiting: 7,
        scheduled: 0,
        outboxScheduled: 0,
        failed: 2,
        outboxPending: 0,
      },
    );
    expect(again).toMatchObject({ redis: 'offline', waiting: 7, failed: 2 });
    await db.outboxEvent.delete({ where: { dedupeKey: key } });
  });

  it('counts waiting and failed jobs when Redis is up', async () => {
    const db = await testDb();
    const queue = queueAt();
    await waitFor(async () => queue.online());
    await queue.add('audit.ping', { note: 'a' }, uniqueTag('w'));
    await queue.add('audit.ping', { note: 'b' }, uniqueTag('w'));
    const status = await readQueueStatus({ queue, db });
    expect(status).toMatchObject({ redis: 'online', waiting: 2, failed: 0 });
  });

  it('counts only due work as waiting: a delayed job and a future outbox row are scheduled', async () => {
    const db = await testDb();
    const queue = queueAt();
    await waitFor(async () => queue.online());
    await queue
      .queueFor('audit.ping')
      .add('audit.ping', { note: 'later' }, { jobId: uniqueTag('d'), delay: 3_600_000 });
    const key = uniqueTag('later');
    await enqueueInTx(db, {
      kind: 'audit.ping',
      payload: { note: 'later' },
      dedupeKey: key,
      availableAt: new Date(Date.now() + 3_600_000),
    });
    const before = await db.outboxEvent.count({
      where: { dispatchedAt: null, availableAt: { lte: new Date() } },
    });
    try {
      const status = await readQueueStatus({ queue, db });
      expect(status).toMatchObject({ redis: 'online', waiting: 0, failed: 0 });
      // The BullMQ delayed job and the outbox row, each once.
      expect(status.scheduled - status.outboxScheduled).toBe(1);
      expect(status.outboxScheduled).toBeGreaterThanOrEqual(1);
      expect(status.outboxPending).toBe(before);
      // Once due, the outbox row is pending, no longer scheduled.
      const later = await readQueueStatus({
        queue,
        db,
        now: new Date(Date.now() + 3_600_000 + 1_000),
      });
      expect(later.outboxPending).toBe(before + status.outboxScheduled);
      expect(later.outboxScheduled).toBe(0);
    } finally {
      await db.outboxEvent.delete({ where: { dedupeKey: key } });
    }
  });

  it('readiness: Redis down is degraded and still 200', async () => {
    const db = await testDb();
    const queue = queueAt(CLOSED_REDIS_URL);
    const r = await buildReadiness({
      pingDb: () => pingDb(1_000),
      migrationStatus,
      hasEnabledAdmin: async () => true,
      queueStatus: () => readQueueStatus({ queue, db }),
      dbKind: 'postgres',
    });
    expect(r.status).toBe('degraded');
    expect(readinessHttpStatus(r)).toBe(200);
    expect(r.checks.database.ok).toBe(true);
    expect(r.checks.migrations).toMatchObject({ ok: true, pending: [] });
    expect(r.checks.redis.ok).toBe(false);
  });

  it('readiness: database down or migrations pending is unready, 503', async () => {
    const db = await testDb();
    const queue = queueAt();
    await waitFor(async () => queue.online());
    const queueStatus = () => readQueueStatus({ queue, db });
    const ok = await buildReadiness({
      pingDb: () => pingDb(1_000),
      migrationStatus,
      hasEnabledAdmin: async () => true,
      queueStatus,
      dbKind: 'postgres',
    });
    expect(ok.status).toBe('ready');
    const dbDown = await buildReadiness({
      pingDb: async () => false,
      migrationStatus: () => Promise.reject(new Error('connection refused')),
      hasEnabledAdmin: () => Promise.reject(new Error('connection refused')),
      queueStatus,
      dbKind: 'postgres',
    });
    expect(dbDown.status).toBe('unready');
    expect(readinessHttpStatus(dbDown)).toBe(503);
    const behind = await buildReadiness({
      pingDb: async () => true,
      migrationStatus: async () => ({ applied: 1, pending: ['20991231000000_next'] }),
      hasEnabledAdmin: async () => true,
      queueStatus,
      dbKind: 'postgres',
    });
    expect(behind).toMatchObject({
      status: 'unready',
      checks: { migrations: { ok: false, pending: ['20991231000000_next'] } },
    });
    // A hung dependency does not hang the endpoint.
    const t = Date.now();
    const hung = await buildReadiness({
      pingDb: () => new Promise(() => {}),
      migrationStatus: () => new Promise(() => {}),
      hasEnabledAdmin: () => new Promise(() => {}),
      queueStatus,
      dbKind: 'postgres',
    });
    expect(hung.status).toBe('unready');
    expect(Date.now() - t).toBeLessThan(3_000);
  });

  it('getReadiness() on this process’s real wiring answers without secrets', async () => {
    const r = await getReadiness();
    expect(r.checks.database).toEqual({ ok: true, kind: 'postgres' });
    expect(r.checks.migrations.ok).toBe(true);
    expect(JSON.stringify(r)).not.toMatch(/postgres(ql)?:\/\/|redis:\/\//);
  });
});
