import 'server-only';
import { type JobState, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  JOB_LANES,
  type JobDefinitions,
  type JobLane,
  jobDefinitions,
  laneOf,
} from '../jobs/definitions';
import { type Logger, moduleLogger } from '../logger';
import { closeRedis, createRedisConnection, withTimeout } from './connection';

/**
 * Where the queues live. Tests use their own name and prefix per run. Each
 * lane is its own BullMQ queue named `<queueName>-<lane>`; `queueName`
 * itself is the single queue of versions before lanes (./worker.ts drains it).
 */
export interface QueueTarget {
  redisUrl: string;
  /** The base name the lanes' queue names derive from. */
  queueName: string;
  /** BullMQ key prefix: every key of the queue starts with it. */
  prefix: string;
}

export const DEFAULT_QUEUE_NAME = 'jobs';
export const DEFAULT_QUEUE_PREFIX = 'checkpoint';

const DAY_S = 24 * 60 * 60;
/** Completed jobs are kept as long as dispatched outbox rows, so a late
 * duplicate `add` of the same jobId still finds the job and is ignored. */
const KEEP_COMPLETED_S = 7 * DAY_S;
const KEEP_FAILED_S = 30 * DAY_S;

export const DEFAULT_ADD_TIMEOUT_MS = 2_000;
/** BullMQ's largest job priority (its PRIORITY_LIMIT, 2^21 - 1); 1 runs first. */
export const MAX_JOB_PRIORITY = 2 ** 21 - 1;

/** The BullMQ queue name of `lane` under a target's base name. */
export function laneQueueName(base: string, lane: JobLane): string {
  return `${base}-${lane}`;
}

/** A lane, or the pre-lane queue still drained (`legacy`): the `queue` label of the metrics. */
export type QueueLabel = JobLane | 'legacy';

/** One queue's counters (./status.ts splits due from not yet due). */
export interface LaneCounts {
  queue: QueueLabel;
  /** Due: waiting or prioritized. */
  waiting: number;
  /** Not due yet: delayed (retries in back-off, deadlines, postponed by a busy host). */
  delayed: number;
  active: number;
  failed: number;
}

export interface QueueCounts {
  /** Not yet picked up: waiting, delayed or prioritized. */
  waiting: number;
  active: number;
  failed: number;
}

export interface JobLookup {
  state: JobState | 'unknown';
  failedReason?: string;
}

export class QueueUnavailableError extends Error {
  readonly code = 'queue_unavailable';
}

/**
 * The producer side of the lanes: one Redis connection shared by one BullMQ
 * queue per lane (plus the pre-lane queue, read only), adds with a deadline.
 */
export class JobQueue {
  readonly redis: Redis;
  /** One BullMQ queue per lane. */
  readonly lanes: ReadonlyMap<JobLane, Queue>;
  /**
   * The single queue of versions before lanes. Nothing is added to it any
   * more; lookups fall back to it so that a job still waiting there is not
   * taken for lost and added a second time to its lane.
   */
  readonly legacy: Queue;
  private readonly log: Logger;

  constructor(
    readonly target: QueueTarget,
    private readonly definitions: JobDefinitions = jobDefinitions,
    log: Logger = moduleLogger('queue'),
  ) {
    this.log = log.child({ queue: target.queueName });
    this.redis = createRedisConnection(target.redisUrl, 'producer', this.log);
    this.lanes = new Map(
      JOB_LANES.map((lane) => [lane, this.open(laneQueueName(target.queueName, lane))]),
    );
    this.legacy = this.open(target.queueName);
  }

  private open(name: string): Queue {
    const queue = new Queue(name, {
      connection: this.redis,
      prefix: this.target.prefix,
      defaultJobOptions: {
        removeOnComplete: { age: KEEP_COMPLETED_S },
        removeOnFail: { age: KEEP_FAILED_S },
      },
    });
    // The connection's own listener logs outages; this one only keeps an
    // unhandled 'error' event from crashing the process.
    queue.on('error', () => {});
    return queue;
  }

  /** The BullMQ queue that job `name` goes to (its definition's lane). */
  queueFor(name: string): Queue {
    return this.lanes.get(laneOf(name, this.definitions)) as Queue;
  }

  /** Every queue: the lanes, then the pre-lane one. */
  all(): { label: QueueLabel; queue: Queue }[] {
    return [
      ...[...this.lanes].map(([label, queue]) => ({ label, queue })),
      { label: 'legacy' as const, queue: this.legacy },
    ];
  }

  /** True when the producer connection is up (no I/O). */
  online(): boolean {
    return this.redis.status === 'ready';
  }

  /**
   * Adds a job to its lane under a deterministic id (a second add of the
   * same id is a no-op in BullMQ). Throws QueueUnavailableError after
   * `timeoutMs`: the add may still land later, which the id makes harmless.
   * `opts.priority` (1 first, up to MAX_JOB_PRIORITY): BullMQ takes every
   * job added without one before any prioritized job of the same queue.
   */
  async add(
    name: string,
    payload: unknown,
    jobId: string,
    timeoutMs = DEFAULT_ADD_TIMEOUT_MS,
    opts: { priority?: number } = {},
  ) {
    const def = Object.hasOwn(this.definitions, name) ? this.definitions[name] : undefined;
    try {
      await withTimeout(
        this.queueFor(name).add(name, payload, {
          jobId,
          attempts: def?.attempts ?? 5,
          backoff: { type: 'exponential', delay: def?.backoffMs ?? 2_000 },
          ...(opts.priority === undefined ? {} : { priority: opts.priority }),
        }),
        timeoutMs,
        'queue_add_timeout',
      );
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Where the job `name` with this id is: a BullMQ state in its lane (or,
   * failing that, in the pre-lane queue), or 'unknown' when Redis holds no
   * such job (never added, removed, or lost with Redis's data). A failed job
   * comes with its reason. QueueUnavailableError after `timeoutMs`.
   */
  async jobState(
    jobId: string,
    name: string,
    timeoutMs = DEFAULT_ADD_TIMEOUT_MS,
  ): Promise<JobLookup> {
    try {
      const lane = await this.lookup(this.queueFor(name), jobId, timeoutMs);
      if (lane.state !== 'unknown') return lane;
      return await this.lookup(this.legacy, jobId, timeoutMs);
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  private async lookup(queue: Queue, jobId: string, timeoutMs: number): Promise<JobLookup> {
    const state = await withTimeout(queue.getJobState(jobId), timeoutMs, 'queue_state_timeout');
    if (state !== 'failed') return { state };
    const job = await withTimeout(queue.getJob(jobId), timeoutMs, 'queue_state_timeout');
    return { state, failedReason: job?.failedReason ?? 'failed' };
  }

  /** Each queue's counts, or QueueUnavailableError when Redis does not answer in time. */
  async laneCounts(timeoutMs: number): Promise<LaneCounts[]> {
    if (!this.online()) throw new QueueUnavailableError('redis offline');
    try {
      // One pipeline-sized burst on one connection: seven small reads.
      return await withTimeout(
        Promise.all(
          this.all().map(async ({ label, queue }) => {
            const c = await queue.getJobCounts(
              'waiting',
              'prioritized',
              'delayed',
              'active',
              'failed',
            );
            return {
              queue: label,
              waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
              delayed: c.delayed ?? 0,
              active: c.active ?? 0,
              failed: c.failed ?? 0,
            };
          }),
        ),
        timeoutMs,
        'queue_counts_timeout',
      );
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  /** Job counts over every queue, or QueueUnavailableError when Redis does not answer in time. */
  async counts(timeoutMs: number): Promise<QueueCounts> {
    const lanes = await this.laneCounts(timeoutMs);
    return {
      waiting: sum(lanes, (l) => l.waiting + l.delayed),
      active: sum(lanes, (l) => l.active),
      failed: sum(lanes, (l) => l.failed),
    };
  }

  async close(): Promise<void> {
    const queues = this.all().map((q) => q.queue);
    if (!this.online()) {
      // BullMQ's close waits for a connection that may never come.
      for (const q of queues) q.close().catch(() => {});
      this.redis.disconnect();
      return;
    }
    try {
      await withTimeout(Promise.all(queues.map((q) => q.close())), 2_000, 'queue_close_timeout');
    } catch (err) {
      this.log.warn({ err: String(err) }, 'queue close failed');
    }
    await closeRedis(this.redis);
  }
}

/**
 * Removes every queue of a target (each lane and the pre-lane one) with all
 * its jobs: for benchmarks and tests, which run on targets of their own.
 * Refuses the installation's default target, whose jobs are real work.
 * `redisUrl` overrides the target's (a test target may name a closed port).
 */
export async function obliterateQueues(
  target: QueueTarget,
  redisUrl = target.redisUrl,
): Promise<void> {
  if (target.queueName === DEFAULT_QUEUE_NAME && target.prefix === DEFAULT_QUEUE_PREFIX) {
    throw new Error('refusing to obliterate the default queues');
  }
  const names = [target.queueName, ...JOB_LANES.map((l) => laneQueueName(target.queueName, l))];
  for (const name of names) {
    const q = new Queue(name, { connection: { url: redisUrl }, prefix: target.prefix });
    q.on('error', () => {});
    try {
      await q.obliterate({ force: true });
    } finally {
      await q.close();
    }
  }
}

export function sum<T>(items: readonly T[], pick: (item: T) => number): number {
  return items.reduce((n, item) => n + pick(item), 0);
}
