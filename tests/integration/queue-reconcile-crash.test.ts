import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker } from '@/lib/server/queue/worker';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testQueueTarget, waitFor } from './helpers/queue';
import { decidedTicket, makeHost, Receiver } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

/**
 * The incident itself: a Redis without persistence crashes (SIGKILL) after
 * the relay handed the callbacks' jobs over, and comes back empty. A private
 * redis-server on its own port, so nothing else loses data.
 */

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

class PrivateRedis {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'ck-redis-'));
  constructor(readonly port: number) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: this.dir, stdio: 'ignore' },
    );
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    try {
      await waitFor(async () => {
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          return false;
        }
      }, 10_000);
      expect(await probe.dbsize()).toBe(0);
    } finally {
      probe.disconnect();
    }
  }

  /** SIGKILL: whatever was only in memory is gone. */
  async crash(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((r) => {
      c.once('exit', () => r());
      c.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.crash();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('Redis crashes without persistence after the relay handed the jobs over', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('restarted empty: every callback still arrives, exactly once per webhook-id', async () => {
    await truncateAll();
    const db = await testDb();
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    cleanups.push(() => redis.stop());
    const receiver = new Receiver();
    await receiver.start();
    cleanups.push(() => receiver.stop());
    const hostId = await makeHost('crash-host');
    await saveWebhook({ hostId, kind: 'callback', url: `${receiver.url}/hook` }, null);

    const target = testQueueTarget(redis.url);
    const queue = new JobQueue(target);
    const relay = new OutboxRelay({
      db,
      queue,
      intervalMs: 50,
      addTimeoutMs: 300,
      reconcileIntervalMs: 200,
      reconcileLeaseMs: 300,
    });
    cleanups.push(async () => {
      await relay.stop();
      await queue.close();
    });
    await waitFor(async () => queue.online());
    const tickets: string[] = [];
    for (let i = 0; i < 10; i++) tickets.push(await decidedTicket(hostId));
    expect((await relay.runOnce()).dispatched).toBe(10);
    expect((await queue.counts(1_000)).waiting).toBe(10);

    await redis.crash();
    await redis.start();
    relay.start();
    const worker = startJobWorker({ target, db, heartbeatMs: 0, concurrency: 8 });
    cleanups.push(() => worker.close());

    const rows = await waitFor(async () => {
      const r = await listDeliveries(hostId);
      return r.length === 10 && r.every((d) => d.status === 'delivered') ? r : null;
    }, 40_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(ids.sort()).toEqual(rows.map((d) => d.messageId).sort());
    const got = receiver.received.map((r) => JSON.parse(r.body).data.ticket_id).sort();
    expect(got).toEqual([...tickets].sort());
  });
});
