import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobDefinitions } from '@/lib/server/jobs/definitions';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { withHandler } from '@/lib/server/jobs/runnable';
import { JobQueue, laneQueueName } from '@/lib/server/queue/queues';
import { laneHeartbeatKey, WORKER_HEARTBEAT_KEY } from '@/lib/server/queue/heartbeat';
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
 * WORKER_LANES (issue 17): a worker consumes only the lanes it is given, so
 * callbacks can run in processes of their own. A job of a lane nobody
 * consumes waits; it is not taken by a worker of another lane.
 */

const cleanups: (() => Promise<void>)[] = [];

describe('workers of some lanes only (WORKER_LANES)', () => {
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('an expiry worker leaves a callback waiting; a callbacks worker runs it', async () => {
    const db = await testDb();
    const target = testQueueTarget();
    const { log } = capturingLogger();
    const queue = new JobQueue(target, undefined, log);
    cleanups.push(async () => {
      await queue.close();
      await obliterateTarget(target);
    });
    const ran: string[] = [];
    const registry = {
      ...jobRegistry,
      'webhooks.deliver': withHandler(jobDefinitions['webhooks.deliver'], async (p) => {
        ran.push(`deliver:${p.deliveryId}`);
      }),
      'approvals.expire': withHandler(jobDefinitions['approvals.expire'], async (p) => {
        ran.push(`expire:${p.ticketId}`);
      }),
    };
    const expiryOnly = startJobWorker({
      target,
      db,
      registry,
      log,
      lanes: ['expiry'],
      heartbeatMs: 60_000,
    });
    cleanups.push(() => expiryOnly.close());
    // One BullMQ worker, on the expiry lane's queue; no drain of the pre-lane queue.
    expect(expiryOnly.workers.map((w) => w.queue)).toEqual([
      laneQueueName(target.queueName, 'expiry'),
    ]);
    await waitFor(async () => queue.online());

    const deliveryId = randomUUID();
    const callbackId = uniqueTag('callback');
    await queue.add('webhooks.deliver', { deliveryId, attempt: 1 }, callbackId);
    // Added after the callback and run: the expiry worker is consuming.
    const ticketId = randomUUID();
    await queue.add('approvals.expire', { ticketId }, uniqueTag('expire'));
    await waitFor(async () => ran.includes(`expire:${ticketId}`));
    expect(ran).toEqual([`expire:${ticketId}`]);
    expect(await queue.jobState(callbackId, 'webhooks.deliver')).toEqual({ state: 'waiting' });

    // The heartbeat says which lanes this process consumes.
    const beat = await waitFor(() =>
      db.appSetting.findUnique({ where: { key: WORKER_HEARTBEAT_KEY } }),
    );
    expect(beat.value).toMatchObject({ lanes: ['expiry'], drainsLegacy: false });
    // …and per lane, so /status shows a lane nobody consumes.
    const laneBeats = await db.appSetting.findMany({
      where: { key: { in: [laneHeartbeatKey('expiry'), laneHeartbeatKey('callbacks')] } },
    });
    expect(laneBeats.map((b) => b.key)).toEqual([laneHeartbeatKey('expiry')]);

    const callbacksOnly = startJobWorker({
      target,
      db,
      registry,
      log,
      lanes: ['callbacks'],
      heartbeatMs: 0,
    });
    cleanups.push(() => callbacksOnly.close());
    expect(callbacksOnly.lanes).toEqual(['callbacks']);
    await waitFor(async () => ran.includes(`deliver:${deliveryId}`));
    expect(await queue.jobState(callbackId, 'webhooks.deliver')).toEqual({ state: 'completed' });
  });

  it('every lane by default, and the pre-lane queue with the maintenance lane', async () => {
    const db = await testDb();
    const target = testQueueTarget();
    const { log } = capturingLogger();
    const all = startJobWorker({ target, db, log, heartbeatMs: 0 });
    const maintenance = startJobWorker({
      target,
      db,
      log,
      heartbeatMs: 0,
      lanes: ['maintenance', 'slack'],
    });
    cleanups.push(async () => {
      await all.close();
      await maintenance.close();
      await obliterateTarget(target);
    });
    expect(all.workers.map((w) => w.queue)).toContain(target.queueName);
    expect(all.workers).toHaveLength(7);
    // Lane order, whatever order they were given in.
    expect(maintenance.workers.map((w) => w.queue)).toEqual([
      laneQueueName(target.queueName, 'slack'),
      laneQueueName(target.queueName, 'maintenance'),
      target.queueName,
    ]);
  });
});
