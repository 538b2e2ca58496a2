import { Queue } from 'bullmq';
import { z } from 'zod';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineJob, type JobDefinitions, jobDefinitions } from '@/lib/server/jobs/definitions';
import { withHandler } from '@/lib/server/jobs/runnable';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { startJobWorker } from '@/lib/server/queue/worker';
import { closeTestDb, testDb } from './helpers/db';
import {
  capturingLogger,
  obliterateTarget,
  testQueueTarget,
  uniqueTag,
  waitFor,
} from './helpers/queue';

describe('job registry in the worker', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(closeTestDb);

  it('logs and drops unknown names and bad payloads, and keeps working', async () => {
    const db = await testDb();
    const { log, lines } = capturingLogger();
    const target = testQueueTarget();
    const worker = startJobWorker({ target, db, heartbeatMs: 0, log });
    // A raw producer: what an old version, a bug or a hand-edited Redis could push.
    const raw = new Queue(target.queueName, {
      connection: { url: target.redisUrl },
      prefix: target.prefix,
    });
    raw.on('error', () => {});
    cleanups.push(async () => {
      await worker.close();
      await raw.close();
      await obliterateTarget(target);
    });
    const tag = uniqueTag('reg');
    await raw.add('no.such.job', { note: 'x' }, { jobId: `${tag}.unknown` });
    await raw.add('audit.ping', { note: 42 }, { jobId: `${tag}.bad`, attempts: 3 });
    await raw.add(
      'audit.ping',
      { note: 'x', secret: 'hunter2' },
      { jobId: `${tag}.extra`, attempts: 3 },
    );
    await raw.add('audit.ping', { note: 'after' }, { jobId: `${tag}.good` });

    await waitFor(
      async () => (await db.auditEvent.count({ where: { targetId: `${tag}.good` } })) === 1,
    );
    await waitFor(async () => (await raw.getJobCounts('completed')).completed === 4);

    for (const [id, reason] of [
      [`${tag}.unknown`, 'job_unknown'],
      [`${tag}.bad`, 'job_payload_invalid'],
      [`${tag}.extra`, 'job_payload_invalid'],
    ]) {
      const job = await raw.getJob(id);
      expect(job?.returnvalue).toEqual({ dropped: reason });
      // Dropped means run once, not retried.
      expect(job?.attemptsMade).toBeLessThanOrEqual(1);
      const line = lines.find((l) => l.jobId === id);
      expect(line).toMatchObject({ level: 'error', code: reason });
      expect(await db.auditEvent.count({ where: { targetId: id } })).toBe(0);
    }
    // The payload never reaches the log, only where it is wrong.
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    expect(lines.find((l) => l.jobId === `${tag}.bad`)?.issues).toEqual([
      { path: 'note', message: expect.any(String) },
    ]);
  });

  it('retries a handler that throws, then succeeds', async () => {
    const db = await testDb();
    const { log } = capturingLogger();
    const target = testQueueTarget();
    let calls = 0;
    const definition = defineJob({
      name: 'test.flaky',
      lane: 'maintenance',
      schema: z.object({ key: z.string() }),
      backoffMs: 10,
    });
    const flaky = withHandler(definition, async ({ key }, ctx) => {
      calls += 1;
      if (ctx.attempt < 2) throw new Error('transient');
      await ctx.db.auditEvent.create({
        data: { actorKind: 'system', action: 'test.flaky', targetId: key },
      });
    });
    const registry = { ...jobRegistry, 'test.flaky': flaky };
    const worker = startJobWorker({ target, db, registry, heartbeatMs: 0, log });
    const { JobQueue } = await import('@/lib/server/queue/queues');
    const queue = new JobQueue(target, registry, log);
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    const key = uniqueTag('flaky');
    await queue.add('test.flaky', { key }, key);
    await waitFor(async () => (await db.auditEvent.count({ where: { targetId: key } })) === 1);
    expect(calls).toBe(2);
  });

  it('registry keys are the job names (the outbox kind is the key)', () => {
    for (const [key, def] of Object.entries(jobDefinitions)) expect(def.name).toBe(key);
    for (const [key, def] of Object.entries(jobRegistry)) expect(def.name).toBe(key);
  });

  it('every definition has a handler, run with the definition’s own schema and retry policy', () => {
    expect(Object.keys(jobRegistry).sort()).toEqual(Object.keys(jobDefinitions).sort());
    const definitions: JobDefinitions = jobDefinitions;
    for (const [key, def] of Object.entries(definitions)) {
      const runnable = jobRegistry[key as keyof typeof jobRegistry];
      expect(runnable.schema).toBe(def.schema);
      expect(runnable.attempts).toBe(def.attempts);
      expect(runnable.backoffMs).toBe(def.backoffMs);
      expect(typeof runnable.handler).toBe('function');
    }
  });
});
