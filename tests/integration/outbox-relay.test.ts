import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueInTx, OutboxError } from '@/lib/server/queue/outbox';
import { JobQueue, type QueueTarget, QueueUnavailableError } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { type JobWorker, startJobWorker } from '@/lib/server/queue/worker';
import { closeTestDb, testDb } from './helpers/db';
import {
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

const pings = (db: PrismaClient, key: string) =>
  db.auditEvent.count({ where: { action: 'audit.ping', targetId: key } });

describe('transactional outbox: row → relay → BullMQ → worker → effect', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  async function pipeline(target: QueueTarget = testQueueTarget()) {
    const db = await testDb();
    const { log } = capturingLogger();
    const queue = new JobQueue(target, undefined, log);
    const relay = new OutboxRelay({ db, queue, log });
    const worker: JobWorker = startJobWorker({ target, db, heartbeatMs: 0, log });
    cleanups.push(async () => {
      await relay.stop();
      await worker.close();
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    return { db, queue, relay };
  }

  it('runs the handler once for a row committed with the caller’s change', async () => {
    const { db, relay, queue } = await pipeline();
    const key = uniqueTag('ping');
    await db.$transaction(async (tx) => {
      await tx.appSetting.create({ data: { key, value: { caused: 'the job' } } });
      expect(
        await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key }),
      ).toBe(true);
    });

    const res = await relay.runOnce();
    expect(res.dispatched).toBeGreaterThanOrEqual(1);
    const row = await db.outboxEvent.findUniqueOrThrow({ where: { dedupeKey: key } });
    expect(row.dispatchedAt).not.toBeNull();

    await waitFor(async () => (await pings(db, key)) === 1);
    const event = await db.auditEvent.findFirstOrThrow({ where: { targetId: key } });
    expect(event.details).toEqual({ note: key });
    // The BullMQ job carries the dedupeKey as its id, in its kind's lane.
    expect(await queue.queueFor('audit.ping').getJob(key)).toBeTruthy();
    expect(await queue.lanes.get('maintenance')?.getJob(key)).toBeTruthy();
    // Relaying again finds nothing to do and the handler does not run again.
    await relay.runOnce();
    await new Promise((r) => setTimeout(r, 300));
    expect(await pings(db, key)).toBe(1);
  });

  it('writes nothing when the caller’s transaction rolls back', async () => {
    const db = await testDb();
    const key = uniqueTag('rollback');
    await expect(
      db.$transaction(async (tx) => {
        await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: 'x' }, dedupeKey: key });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await db.outboxEvent.count({ where: { dedupeKey: key } })).toBe(0);
  });

  it('a repeated dedupeKey is a no-op that leaves the caller’s transaction usable', async () => {
    const db = await testDb();
    const key = uniqueTag('dup');
    const second = await db.$transaction(async (tx) => {
      await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: '1' }, dedupeKey: key });
      const again = await enqueueInTx(tx, {
        kind: 'audit.ping',
        payload: { note: '2' },
        dedupeKey: key,
      });
      await tx.appSetting.create({ data: { key, value: {} } });
      return again;
    });
    expect(second).toBe(false);
    const rows = await db.outboxEvent.findMany({ where: { dedupeKey: key } });
    expect(rows.map((r) => r.payload)).toEqual([{ note: '1' }]);
    expect(await db.appSetting.count({ where: { key } })).toBe(1);
  });

  it.each([
    ['outbox_kind_unknown', { kind: 'no.such.job', payload: {}, dedupeKey: 'k1' }],
    ['outbox_payload_invalid', { kind: 'audit.ping', payload: { note: 7 }, dedupeKey: 'k2' }],
    [
      'outbox_payload_invalid',
      { kind: 'audit.ping', payload: { note: 'x', y: 1 }, dedupeKey: 'k3' },
    ],
    ['outbox_dedupe_key_invalid', { kind: 'audit.ping', payload: { note: 'x' }, dedupeKey: 'a:b' }],
    ['outbox_dedupe_key_invalid', { kind: 'audit.ping', payload: { note: 'x' }, dedupeKey: '42' }],
    ['outbox_dedupe_key_invalid', { kind: 'audit.ping', payload: { note: 'x' }, dedupeKey: '' }],
  ])('rejects bad input with %s and writes nothing', async (code, input) => {
    const db = await testDb();
    const before = await db.outboxEvent.count();
    const err = await db
      // biome-ignore lint/suspicious/noExplicitAny: deliberately ill-typed input
      .$transaction((tx) => enqueueInTx(tx, input as any))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboxError);
    expect((err as OutboxError).code).toBe(code);
    expect(await db.outboxEvent.count()).toBe(before);
  });

  it('holds a row back until its availableAt', async () => {
    const { db, relay } = await pipeline();
    const key = uniqueTag('later');
    await enqueueInTx(db, {
      kind: 'audit.ping',
      payload: { note: 'later' },
      dedupeKey: key,
      availableAt: new Date(Date.now() + 60_000),
    });
    await relay.runOnce();
    const row = await db.outboxEvent.findUniqueOrThrow({ where: { dedupeKey: key } });
    expect(row.dispatchedAt).toBeNull();
    await db.outboxEvent.update({ where: { dedupeKey: key }, data: { availableAt: new Date() } });
    await relay.runOnce();
    await waitFor(async () => (await pings(db, key)) === 1);
  });

  it('an add that fails defers that row with backoff and releases the rest of the batch', async () => {
    const target = testQueueTarget();
    const { db } = await pipeline(target);
    const { log } = capturingLogger();
    const tag = uniqueTag('fail');
    const keys = [`${tag}.0`, `${tag}.1`, `${tag}.2`];
    // Redis answers, but refuses the second job (as when it drops mid-batch).
    class FlakyQueue extends JobQueue {
      override async add(name: string, payload: unknown, jobId: string, timeoutMs?: number) {
        if (jobId === keys[1]) throw new QueueUnavailableError('simulated failure');
        await super.add(name, payload, jobId, timeoutMs);
      }
    }
    const flaky = new FlakyQueue(target, undefined, log);
    cleanups.push(() => flaky.close());
    await waitFor(async () => flaky.online());
    for (const key of keys) {
      await enqueueInTx(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    }
    // Make them the oldest due rows so they share one batch, in order.
    await db.outboxEvent.updateMany({
      where: { dedupeKey: { in: keys } },
      data: { availableAt: new Date('2000-01-01T00:00:00Z') },
    });
    const relay = new OutboxRelay({ db, queue: flaky, log, batchSize: 3 });
    const t = Date.now();
    const res = await relay.runOnce();
    expect(res).toMatchObject({ claimed: 3, dispatched: 1, deferred: 2 });
    const rows = Object.fromEntries(
      (await db.outboxEvent.findMany({ where: { dedupeKey: { in: keys } } })).map((r) => [
        r.dedupeKey,
        r,
      ]),
    );
    expect(rows[keys[0]].dispatchedAt).not.toBeNull();
    expect(rows[keys[1]]).toMatchObject({ dispatchedAt: null, attempts: 1 });
    expect(rows[keys[1]].lastError).toContain('simulated failure');
    expect(rows[keys[1]].availableAt.getTime()).toBeGreaterThan(t);
    // Not tried: released at once, with no attempt counted against it.
    expect(rows[keys[2]]).toMatchObject({ dispatchedAt: null, attempts: 0 });
    expect(rows[keys[2]].availableAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('a started relay picks up a nudge at once, well before its next tick', async () => {
    const target = testQueueTarget();
    const { db, queue } = await pipeline(target);
    const { log } = capturingLogger();
    const slow = new OutboxRelay({ db, queue, log, intervalMs: 60_000 });
    slow.start();
    cleanups.push(() => slow.stop());
    const key = uniqueTag('nudge');
    const { enqueue, commitWithOutbox } = await import('@/lib/server/queue/outbox');
    await enqueue(db, { kind: 'audit.ping', payload: { note: 'n' }, dedupeKey: key });
    await waitFor(async () => (await pings(db, key)) === 1, 5_000);
    const key2 = `${key}.tx`;
    await commitWithOutbox(db, async (tx) => {
      await tx.appSetting.create({ data: { key: key2, value: {} } });
      await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: 'tx' }, dedupeKey: key2 });
    });
    await waitFor(async () => (await pings(db, key2)) === 1, 5_000);
  });
});
