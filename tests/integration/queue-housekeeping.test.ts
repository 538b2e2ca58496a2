import { recordsRetentionDedupeKey } from '@/lib/server/jobs/definitions';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ensureBuiltInHost } from '@/lib/server/hosts/builtin';
import { housekeepingDedupeKey } from '@/lib/server/jobs/definitions';
import { enqueue } from '@/lib/server/queue/outbox';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker, WORKER_HEARTBEAT_KEY } from '@/lib/server/queue/worker';
import { closeTestDb, testDb } from './helpers/db';
import {
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

const DAY = 24 * 3600_000;

describe('housekeeping, requested through the outbox', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('deletes expired sign-in attempts and old dispatched outbox rows, and audits the counts', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    const tag = uniqueTag('hk');
    const ago = (ms: number) => new Date(Date.now() - ms);
    await db.signInAttempt.createMany({
      data: [
        { email: `${tag}-old@x.test`, success: false, createdAt: ago(2 * DAY) },
        { email: `${tag}-new@x.test`, success: false, createdAt: ago(3600_000) },
      ],
    });
    const row = (suffix: string, dispatchedAt: Date | null, createdAt: Date) => ({
      kind: 'audit.ping',
      payload: { note: suffix },
      dedupeKey: `${tag}.${suffix}`,
      createdAt,
      availableAt: new Date(Date.now() + DAY), // not for the relay
      dispatchedAt,
    });
    await db.outboxEvent.createMany({
      data: [
        row('sent-old', ago(8 * DAY), ago(8 * DAY)),
        row('sent-new', ago(DAY), ago(DAY)),
        row('unsent-old', null, ago(8 * DAY)),
      ],
    });

    const queue = new JobQueue(target, undefined, log);
    const relay = new OutboxRelay({ db, queue, log });
    const worker = startJobWorker({ target, db, log, heartbeatMs: 60_000 });
    cleanups.push(async () => {
      await relay.stop();
      await worker.close();
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    await enqueue(db, {
      kind: 'housekeeping.run',
      payload: { trigger: 'manual' },
      dedupeKey: `${tag}.run`,
    });
    await relay.runOnce();

    const audit = await waitFor(() =>
      db.auditEvent.findFirst({ where: { action: 'housekeeping.run', targetId: `${tag}.run` } }),
    );
    expect(audit.actorKind).toBe('system');
    expect(audit.details).toMatchObject({ trigger: 'manual' });
    const details = audit.details as { signInAttemptsDeleted: number; outboxEventsDeleted: number };
    expect(details.signInAttemptsDeleted).toBeGreaterThanOrEqual(1);
    expect(details.outboxEventsDeleted).toBeGreaterThanOrEqual(1);
    // It proposes the day's records retention run (deduplicated per day).
    const retention = await db.outboxEvent.findUnique({
      where: { dedupeKey: recordsRetentionDedupeKey(new Date()) },
    });
    expect(retention?.kind).toBe('records.retention');

    const emails = (await db.signInAttempt.findMany({ where: { email: { startsWith: tag } } })).map(
      (r) => r.email,
    );
    expect(emails).toEqual([`${tag}-new@x.test`]);
    const left = (
      await db.outboxEvent.findMany({ where: { dedupeKey: { startsWith: `${tag}.` } } })
    )
      .map((r) => r.dedupeKey)
      .sort();
    // Undispatched work is never housekept, however old.
    expect(left).toEqual([`${tag}.run`, `${tag}.sent-new`, `${tag}.unsent-old`]);
    // The worker announced itself for /status.
    const beat = await db.appSetting.findUnique({ where: { key: WORKER_HEARTBEAT_KEY } });
    expect(beat?.value).toMatchObject({ queue: target.queueName, pid: process.pid });
  });

  it('relays that schedule housekeeping propose one run per interval between them', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    const queues = [0, 1].map(() => new JobQueue(target, undefined, log));
    const relays = queues.map(
      (queue) => new OutboxRelay({ db, queue, log, scheduleHousekeeping: true }),
    );
    cleanups.push(async () => {
      for (const r of relays) await r.stop();
      for (const q of queues) await q.close();
      await obliterateTarget(target);
    });
    const key = housekeepingDedupeKey(Date.now());
    await db.outboxEvent.deleteMany({ where: { dedupeKey: key } });
    await Promise.all(relays.map((r) => r.runOnce()));
    await Promise.all(relays.map((r) => r.runOnce()));
    const rows = await db.outboxEvent.findMany({
      where: {
        kind: 'housekeeping.run',
        dedupeKey: { in: [key, housekeepingDedupeKey(Date.now())] },
      },
    });
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(new Set(rows.map((r) => r.dedupeKey)).size).toBe(rows.length);
    expect(rows.filter((r) => r.dedupeKey === key).length).toBeLessThanOrEqual(1);
    await db.outboxEvent.deleteMany({
      where: { kind: 'housekeeping.run', dedupeKey: { startsWith: 'housekeeping.' } },
    });
  });
});

describe('built-in host', () => {
  afterAll(closeTestDb);

  it('is created once, even by concurrent boots, and a squatter on its name is refused', async () => {
    const db = await testDb();
    await db.host.deleteMany({ where: { OR: [{ builtIn: true }, { name: 'embedded' }] } });
    await db.host.create({ data: { name: 'embedded' } });
    const err = await ensureBuiltInHost(db).catch((e) => e);
    expect(err.code).toBe('builtin_host_name_taken');
    expect(await db.host.count({ where: { builtIn: true } })).toBe(0);

    await db.host.deleteMany({ where: { name: 'embedded' } });
    const ids = await Promise.all([1, 2, 3].map(() => ensureBuiltInHost(db)));
    expect(new Set(ids.map((h) => h.id)).size).toBe(1);
    const hosts = await db.host.findMany({ where: { builtIn: true } });
    expect(hosts).toHaveLength(1);
    expect(hosts[0]).toMatchObject({ name: 'embedded', builtIn: true, id: ids[0].id });
  });
});
