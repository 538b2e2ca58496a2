import 'server-only';
import os from 'node:os';
import { type Job, Worker } from 'bullmq';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { type JobRegistry, jobRegistry } from '../jobs/handlers';
import { type Logger, moduleLogger } from '../logger';
import { closeRedis, createRedisConnection, withTimeout } from './connection';
import type { QueueTarget } from './queues';
import { settleOutboxRow } from './reconcile';

/** AppSetting key of the worker heartbeat shown on /status. */
export const WORKER_HEARTBEAT_KEY = 'worker.heartbeat';

export interface WorkerHeartbeat {
  at: string;
  host: string;
  pid: number;
  queue: string;
}

export interface JobWorkerOptions {
  target: QueueTarget;
  db: PrismaClient;
  registry?: JobRegistry;
  concurrency?: number;
  /** 0 disables the heartbeat (tests). */
  heartbeatMs?: number;
  log?: Logger;
}

export type DropReason = 'job_unknown' | 'job_payload_invalid';

export interface ProcessResult {
  dropped?: DropReason;
}

/**
 * Runs one job through the registry (definitions with their handlers; this
 * is the only module that loads the handlers). The payload is re-parsed with
 * the definition's schema: Redis content is not trusted. An unknown name or a payload its schema
 * rejects is logged and dropped (completed without effect): retrying cannot
 * fix it, and it must not stop the jobs behind it.
 * Once the handler has run (or the job is dropped) the job's outbox row is
 * settled, before BullMQ hears of it: should Redis lose the job after this,
 * PostgreSQL already knows the work is done and nothing runs it again.
 */
export async function processJob(
  job: Pick<Job, 'name' | 'data' | 'id' | 'attemptsMade'>,
  deps: { db: PrismaClient; registry: JobRegistry; log: Logger },
): Promise<ProcessResult> {
  const log = deps.log.child({ jobName: job.name, jobId: job.id });
  const def = Object.hasOwn(deps.registry, job.name) ? deps.registry[job.name] : undefined;
  if (!def) {
    log.error({ code: 'job_unknown' }, 'dropping job with unknown name');
    await settle(deps, job, log, 'job_unknown');
    return { dropped: 'job_unknown' };
  }
  const parsed = def.schema.safeParse(job.data);
  if (!parsed.success) {
    // Paths and messages only: the payload itself may hold anything.
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    log.error({ code: 'job_payload_invalid', issues }, 'dropping job with invalid payload');
    await settle(deps, job, log, 'job_payload_invalid');
    return { dropped: 'job_payload_invalid' };
  }
  await def.handler(parsed.data, {
    db: deps.db,
    log,
    jobId: String(job.id),
    attempt: job.attemptsMade + 1,
  });
  await settle(deps, job, log);
  return {};
}

/**
 * Settles the job's outbox row. A failed write is only logged: the job did
 * its work, and the relay's check settles the row later from the job's
 * completed state in Redis (or, should Redis lose that too, runs the
 * idempotent handler once more).
 */
async function settle(
  deps: { db: PrismaClient },
  job: Pick<Job, 'id'>,
  log: Logger,
  failure?: string,
): Promise<void> {
  if (job.id === undefined) return;
  try {
    await settleOutboxRow(deps.db, String(job.id), failure);
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'outbox settle failed');
  }
}

export interface JobWorker {
  readonly worker: Worker;
  close(): Promise<void>;
}

/**
 * Starts consuming. Never waits for Redis: the worker connects and reconnects
 * in the background, so boot and requests are never held up by it.
 */
export function startJobWorker(opts: JobWorkerOptions): JobWorker {
  const registry = opts.registry ?? jobRegistry;
  const log = (opts.log ?? moduleLogger('worker')).child({ queue: opts.target.queueName });
  const redis = createRedisConnection(opts.target.redisUrl, 'worker', log);
  const worker = new Worker(
    opts.target.queueName,
    (job) => processJob(job, { db: opts.db, registry, log }),
    {
      connection: redis,
      prefix: opts.target.prefix,
      concurrency: opts.concurrency ?? 4,
      autorun: true,
    },
  );
  worker.on('error', (err) => {
    // While Redis is away the connection's listener has said so once; BullMQ
    // would repeat it for every reconnect attempt of each of its clients.
    if (redis.status !== 'ready') return;
    log.warn({ err: err.message }, 'worker error');
  });
  worker.on('failed', (job, err) => {
    log.warn(
      { jobName: job?.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message },
      'job failed',
    );
    // After its last attempt the job is given up: so is its outbox row.
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      void settle({ db: opts.db }, job, log, err.message);
    }
  });

  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  let beat: NodeJS.Timeout | undefined;
  if (heartbeatMs > 0) {
    const write = () =>
      writeHeartbeat(opts.db, opts.target.queueName).catch((err) =>
        log.warn({ err: String(err) }, 'worker heartbeat failed'),
      );
    void write();
    beat = setInterval(write, heartbeatMs);
    beat.unref();
  }

  return {
    worker,
    async close() {
      if (beat) clearInterval(beat);
      if (redis.status === 'ready') {
        try {
          // Lets the running jobs finish; bounded so shutdown always ends.
          await withTimeout(worker.close(), 10_000, 'worker_close_timeout');
        } catch (err) {
          log.warn({ err: String(err) }, 'worker close timed out');
        }
      } else {
        // Without Redis no job can complete and BullMQ's close would wait for
        // the connection forever; dropping the connection ends it.
        worker.close(true).catch(() => {});
      }
      await closeRedis(redis);
    },
  };
}

async function writeHeartbeat(db: PrismaClient, queue: string): Promise<void> {
  const value: WorkerHeartbeat = {
    at: new Date().toISOString(),
    host: os.hostname(),
    pid: process.pid,
    queue,
  };
  await db.appSetting.upsert({
    where: { key: WORKER_HEARTBEAT_KEY },
    create: { key: WORKER_HEARTBEAT_KEY, value: { ...value } },
    update: { value: { ...value } },
  });
}
