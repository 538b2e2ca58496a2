import { afterAll, describe, expect, it, vi } from 'vitest';

// Before any import parses the configuration: no in-process worker, and a
// Redis where nothing listens, so this boot never touches the shared server's
// `checkpoint` queue (another checkout's worker could consume from it).
const savedEnv = vi.hoisted(() => {
  const set = {
    RUN_WORKER: 'false',
    REDIS_URL: 'redis://127.0.0.1:6390',
    ADMIN_EMAIL: 'boot-admin@example.test',
    ADMIN_PASSWORD: 'boot-password-123456',
  };
  const saved = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
  Object.assign(process.env, set);
  return saved;
});

import { boot } from '@/lib/server/boot';
import { BUILT_IN_HOST_NAME } from '@/lib/server/hosts/builtin';
import { enqueue } from '@/lib/server/queue/outbox';
import { producerQueue, stopBackground, workerRunsHere } from '@/lib/server/queue/runtime';
import { getQueueStatus } from '@/lib/server/queue/status';
import { closeTestDb, testDb } from './helpers/db';
import { uniqueTag } from './helpers/queue';

describe('boot()', () => {
  const before = { term: process.listeners('SIGTERM'), int: process.listeners('SIGINT') };
  afterAll(async () => {
    // Leave the test process's own signal handling as it was.
    for (const l of process.listeners('SIGTERM'))
      if (!before.term.includes(l)) process.off('SIGTERM', l);
    for (const l of process.listeners('SIGINT'))
      if (!before.int.includes(l)) process.off('SIGINT', l);
    await stopBackground();
    await closeTestDb();
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('brings the app up without Redis, once, however often it is called', async () => {
    const db = await testDb();
    const t = Date.now();
    const first = boot();
    expect(boot()).toBe(first);
    await first;
    await boot();
    // Redis is unreachable: boot must not have waited for it.
    expect(Date.now() - t).toBeLessThan(5_000);

    const hosts = await db.host.findMany({ where: { builtIn: true } });
    expect(hosts.map((h) => h.name)).toEqual([BUILT_IN_HOST_NAME]);
    // An enabled admin exists (created now, or by an earlier file in this run).
    const [{ n }] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "User" WHERE 'admin'::"Role" = ANY(roles) AND NOT disabled`;
    expect(n).toBeGreaterThanOrEqual(1);
    // RUN_WORKER=false: the relay runs here, the worker does not.
    expect(workerRunsHere()).toBe(false);
    expect(process.listeners('SIGTERM').length).toBe(before.term.length + 1);
    expect(process.listeners('SIGINT').length).toBe(before.int.length + 1);
  });

  it('work enqueued while Redis is down waits in the outbox, and the status says so quickly', async () => {
    const db = await testDb();
    const key = uniqueTag('boot');
    await enqueue(db, { kind: 'audit.ping', payload: { note: 'waits' }, dedupeKey: key });
    await new Promise((r) => setTimeout(r, 300));
    const row = await db.outboxEvent.findUniqueOrThrow({ where: { dedupeKey: key } });
    expect(row.dispatchedAt).toBeNull();
    expect(producerQueue().online()).toBe(false);

    const t = Date.now();
    const status = await getQueueStatus();
    expect(Date.now() - t).toBeLessThan(300);
    expect(status.redis).toBe('offline');
    expect(status.outboxPending).toBeGreaterThanOrEqual(1);
    await db.outboxEvent.delete({ where: { dedupeKey: key } });
  });
});
