import pg from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { enqueueInTx } from '@/lib/server/queue/outbox';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker } from '@/lib/server/queue/worker';
import { closeTestDb, testDb } from './helpers/db';
import {
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

const ROWS = 80;

/** A producer that records every add it performs, and is slow about it. */
class CountingQueue extends JobQueue {
  readonly added: string[] = [];
  override async add(name: string, payload: unknown, jobId: string, timeoutMs?: number) {
    // Keeps claimed rows in flight long enough for the other relays to try them.
    await new Promise((r) => setTimeout(r, 5));
    await super.add(name, payload, jobId, timeoutMs);
    this.added.push(jobId);
  }
}

describe('several relays at once (app and npm run worker)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('never enqueues a row twice and runs the handler once per row', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    const tag = uniqueTag('multi');
    const keys = Array.from({ length: ROWS }, (_, i) => `${tag}.${i}`);
    await db.$transaction(async (tx) => {
      for (const key of keys) {
        await enqueueInTx(tx, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
      }
    });

    const queues = [0, 1, 2].map(() => new CountingQueue(target, undefined, log));
    // Small batches so the relays interleave over many claims.
    const relays = queues.map((queue) => new OutboxRelay({ db, queue, log, batchSize: 7 }));
    const worker = startJobWorker({ target, db, heartbeatMs: 0, log, concurrency: 8 });
    cleanups.push(async () => {
      for (const r of relays) await r.stop();
      await worker.close();
      for (const q of queues) await q.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queues.every((q) => q.online()));

    await Promise.all(relays.map((r) => r.runOnce()));
    await Promise.all(relays.map((r) => r.runOnce()));

    const mine = (ids: string[]) => ids.filter((id) => id.startsWith(`${tag}.`));
    const added = queues.flatMap((q) => mine(q.added));
    expect(added.sort()).toEqual([...keys].sort());
    // The work was actually shared (otherwise this test proves nothing).
    expect(queues.filter((q) => mine(q.added).length > 0).length).toBeGreaterThan(1);

    await waitFor(async () => {
      const n = await db.auditEvent.count({
        where: { action: 'audit.ping', targetId: { in: keys } },
      });
      return n >= ROWS;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(
      await db.auditEvent.count({ where: { action: 'audit.ping', targetId: { in: keys } } }),
    ).toBe(ROWS);
  });

  it('skips rows another transaction holds, without waiting for it', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    const queue = new CountingQueue(target, undefined, log);
    const relay = new OutboxRelay({ db, queue, log });
    const holder = new pg.Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    cleanups.push(async () => {
      await relay.stop();
      await holder.end().catch(() => {});
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    const tag = uniqueTag('locked');
    const held = [`${tag}.held.0`, `${tag}.held.1`];
    const free = [`${tag}.free.0`, `${tag}.free.1`];
    for (const key of [...held, ...free]) {
      await enqueueInTx(db, { kind: 'audit.ping', payload: { note: key }, dedupeKey: key });
    }
    // Another relay's claim in progress: its transaction holds the row locks.
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM "OutboxEvent" WHERE "dedupeKey" = ANY($1) FOR UPDATE', [
      held,
    ]);
    const t = Date.now();
    await relay.runOnce();
    expect(Date.now() - t).toBeLessThan(2_000);
    const mine = queue.added.filter((id) => id.startsWith(`${tag}.`));
    expect(mine.sort()).toEqual([...free].sort());
    await holder.query('ROLLBACK');
    await relay.runOnce();
    expect(queue.added.filter((id) => id.startsWith(`${tag}.`)).sort()).toEqual(
      [...free, ...held].sort(),
    );
  });
});
