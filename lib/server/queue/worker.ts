import 'server-only';
import { DelayedError, type Job, Worker } from 'bullmq';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { DEFAULT_LANE_CONCURRENCY, JOB_LANES, type JobLane } from '../jobs/definitions';
import { type JobRegistry, jobRegistry } from '../jobs/handlers';
import { type Logger, moduleLogger } from '../logger';
import {
  HostBusyError,
  HostSlots,
  STEP_ASIDE,
  type StepAsidePolicy,
  stepAsideMs,
} from '../webhooks/host-slots';
import { closeRedis, createRedisConnection, withTimeout } from './connection';
import { writeHeartbeat } from './heartbeat';
import { laneQueueName, type QueueTarget } from './queues';
import { settleOutboxRow } from './reconcile';

// Where callers looked for it before ./heartbeat.ts held it.
export { WORKER_HEARTBEAT_KEY, type WorkerHeartbeat } from './heartbeat';

/** Calls in flight per host and webhook kind when the caller names no limit. */
export const DEFAULT_HOST_CONCURRENCY = 2;

/**
 * The queue of versions before lanes is drained one job at a time, by the
 * workers that consume the `maintenance` lane (the lane of odds and ends,
 * where unknown names go too): a dedicated callbacks worker must not run
 * expiries from it, yet a deployment that splits the lanes over several
 * processes still drains it, since someone has to run maintenance. Nothing
 * new lands there (except from an old instance during a rolling upgrade);
 * what is left (delayed retries, an expiry due at a deadline, tomorrow's
 * retention run) must still run, but must not compete with the lanes for
 * the database. Its jobs are looked up there too (JobQueue.jobState), so the
 * lost-job check does not add them to a lane a second time.
 */
export const LEGACY_DRAIN_CONCURRENCY = 1;

export interface JobWorkerOptions {
  target: QueueTarget;
  db: PrismaClient;
  registry?: JobRegistry;
  /** Slots per lane; a number gives every lane the same. Unset lanes: DEFAULT_LANE_CONCURRENCY. */
  concurrency?: number | Partial<Record<JobLane, number>>;
  /** Lanes this worker consumes (WORKER_LANES; default: all). With `maintenance` it drains the pre-lane queue too. */
  lanes?: readonly JobLane[];
  /** Outbound webhook calls in flight per host and kind, across workers (WEBHOOK_HOST_CONCURRENCY). */
  hostConcurrency?: number;
  /** How long a job refused a host slot steps aside (default STEP_ASIDE; tests compare policies). */
  stepAside?: StepAsidePolicy;
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
  job: Pick<Job, 'name' | 'data' | 'id' | 'attemptsMade'> & { attemptsStarted?: number },
  deps: {
    db: PrismaClient;
    registry: JobRegistry;
    log: Logger;
    hostSlots?: HostSlots;
    /** Moves the running job back to delayed for `ms` (without counting a try) and throws. */
    postpone?: (ms: number, busy: HostBusyError) => Promise<never>;
    stepAside?: StepAsidePolicy;
  },
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
  try {
    await def.handler(parsed.data, {
      db: deps.db,
      log,
      jobId: String(job.id),
      attempt: job.attemptsMade + 1,
      hostSlots: deps.hostSlots,
    });
  } catch (err) {
    // The host is at its limit: back to delayed for a moment instead of
    // waiting in a worker slot that another host's job could use; the longer
    // it has been waiting, the longer the moment (see stepAsideMs).
    if (err instanceof HostBusyError && deps.postpone) {
      await deps.postpone(stepAsideMs(stepAsides(job), deps.stepAside ?? STEP_ASIDE), err);
    }
    throw err;
  }
  await settle(deps, job, log);
  return {};
}

/** `<queue>|<jobId>` as HostSlots.wait lists it (queue names hold no `|`). */
function splitWaiter(member: string): [string, string] {
  const at = member.indexOf('|');
  return at < 0 ? [member, ''] : [member.slice(0, at), member.slice(at + 1)];
}

/**
 * How often the job has stepped aside for a busy host before this run.
 * BullMQ counts every start (`attemptsStarted`) but only failed ones in
 * `attemptsMade`; a DelayedError is not a failure, so the difference, less
 * this run, is the step-asides (plus any stalled runs, rare enough not to
 * matter). No extra Redis write per step-aside, and the count lives and
 * dies with the job.
 */
export function stepAsides(job: { attemptsMade: number; attemptsStarted?: number }): number {
  return Math.max(0, (job.attemptsStarted ?? 0) - job.attemptsMade - 1);
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
  /** One BullMQ worker per lane consumed, then the pre-lane queue's drain (if this worker runs it). */
  readonly workers: readonly { queue: string; worker: Worker }[];
  /** The lanes consumed, in JOB_LANES order. */
  readonly lanes: readonly JobLane[];
  readonly hostSlots: HostSlots;
  close(): Promise<void>;
}

/** Each lane's slots: the defaults, overridden by a number for all or per lane. */
export function laneConcurrency(
  given?: number | Partial<Record<JobLane, number>>,
): Record<JobLane, number> {
  const out = { ...DEFAULT_LANE_CONCURRENCY };
  for (const lane of JOB_LANES) {
    const n = typeof given === 'number' ? given : given?.[lane];
    if (n !== undefined) out[lane] = n;
  }
  return out;
}

/**
 * Starts consuming: one BullMQ worker per lane, each with its own slots, on
 * one shared Redis connection (each worker adds its own blocking one), and
 * the drain of the pre-lane queue. Never waits for Redis: the workers
 * connect and reconnect in the background, so boot and requests are never
 * held up by it.
 */
export function startJobWorker(opts: JobWorkerOptions): JobWorker {
  const registry = opts.registry ?? jobRegistry;
  const log = (opts.log ?? moduleLogger('worker')).child({ queue: opts.target.queueName });
  const redis = createRedisConnection(opts.target.redisUrl, 'worker', log);
  // Filled below; a freed host slot promotes a waiting job of one of these queues.
  const byQueue = new Map<string, Worker>();
  const hostSlots = new HostSlots(redis, {
    prefix: opts.target.prefix,
    limit: opts.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY,
    wake: async (member) => {
      const [queue, jobId] = splitWaiter(member);
      const worker = byQueue.get(queue);
      if (!worker || !jobId) return false;
      // Throws unless the job is still delayed (already run, or woken by another worker).
      return worker.backend.promote(jobId).then(
        () => true,
        () => false,
      );
    },
  });
  const slots = laneConcurrency(opts.concurrency);
  const lanes = JOB_LANES.filter((l) => (opts.lanes ?? JOB_LANES).includes(l));
  const drainsLegacy = lanes.includes('maintenance');
  const queues = [
    ...lanes.map((lane) => ({
      name: laneQueueName(opts.target.queueName, lane),
      concurrency: slots[lane],
    })),
    ...(drainsLegacy
      ? [{ name: opts.target.queueName, concurrency: LEGACY_DRAIN_CONCURRENCY }]
      : []),
  ];
  const workers = queues.map(({ name, concurrency }) => ({
    queue: name,
    worker: startOne(name, concurrency),
  }));
  for (const w of workers) byQueue.set(w.queue, w.worker);

  function startOne(name: string, concurrency: number): Worker {
    const qlog = log.child({ queue: name });
    const worker = new Worker(
      name,
      (job, token) =>
        processJob(job, {
          db: opts.db,
          registry,
          log: qlog,
          hostSlots,
          stepAside: opts.stepAside,
          postpone: async (ms, busy) => {
            await job.moveToDelayed(Date.now() + ms, token);
            // Listed once delayed: a release before this misses it, and its timer brings it back.
            await hostSlots
              .wait(busy.hostId, busy.kind, `${name}|${job.id}`, job.timestamp)
              .catch(() => {});
            // Tells BullMQ the job was moved: neither completed nor a failed try.
            throw new DelayedError();
          },
        }),
      { connection: redis, prefix: opts.target.prefix, concurrency, autorun: true },
    );
    worker.on('error', (err) => {
      // While Redis is away the connection's listener has said so once; BullMQ
      // would repeat it for every reconnect attempt of each of its clients.
      if (redis.status !== 'ready') return;
      qlog.warn({ err: err.message }, 'worker error');
    });
    worker.on('failed', (job, err) => {
      qlog.warn(
        { jobName: job?.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message },
        'job failed',
      );
      // After its last attempt the job is given up: so is its outbox row.
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
        void settle({ db: opts.db }, job, qlog, err.message);
      }
    });
    return worker;
  }

  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  let beat: NodeJS.Timeout | undefined;
  if (heartbeatMs > 0) {
    const write = () =>
      writeHeartbeat(opts.db, opts.target.queueName, lanes, drainsLegacy).catch((err) =>
        log.warn({ err: String(err) }, 'worker heartbeat failed'),
      );
    void write();
    beat = setInterval(write, heartbeatMs);
    beat.unref();
  }

  return {
    workers,
    lanes,
    hostSlots,
    async close() {
      if (beat) clearInterval(beat);
      if (redis.status === 'ready') {
        try {
          // Lets the running jobs finish; bounded so shutdown always ends.
          await withTimeout(
            Promise.all(workers.map((w) => w.worker.close())),
            10_000,
            'worker_close_timeout',
          );
        } catch (err) {
          log.warn({ err: String(err) }, 'worker close timed out');
        }
      } else {
        // Without Redis no job can complete and BullMQ's close would wait for
        // the connection forever; dropping the connection ends it.
        for (const w of workers) w.worker.close(true).catch(() => {});
      }
      await closeRedis(redis);
    },
  };
}
