import 'server-only';
import { type JobState, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type JobDefinitions, jobDefinitions } from '../jobs/definitions';
import { type Logger, moduleLogger } from '../logger';
import { closeRedis, createRedisConnection, withTimeout } from './connection';

/** Where a queue lives. Tests use their own name and prefix per run. */
export interface QueueTarget {
  redisUrl: string;
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

/** The producer side of a queue: its own Redis connection, adds with a deadline. */
export class JobQueue {
  readonly queue: Queue;
  readonly redis: Redis;
  private readonly log: Logger;

  constructor(
    readonly target: QueueTarget,
    private readonly definitions: JobDefinitions = jobDefinitions,
    log: Logger = moduleLogger('queue'),
  ) {
    this.log = log.child({ queue: target.queueName });
    this.redis = createRedisConnection(target.redisUrl, 'producer', this.log);
    this.queue = new Queue(target.queueName, {
      connection: this.redis,
      prefix: target.prefix,
      defaultJobOptions: {
        removeOnComplete: { age: KEEP_COMPLETED_S },
        removeOnFail: { age: KEEP_FAILED_S },
      },
    });
    // The connection's own listener logs outages; this one only keeps an
    // unhandled 'error' event from crashing the process.
    this.queue.on('error', () => {});
  }

  /** True when the producer connection is up (no I/O). */
  online(): boolean {
    return this.redis.status === 'ready';
  }

  /**
   * Adds a job under a deterministic id (a second add of the same id is a
   * no-op in BullMQ). Throws QueueUnavailableError after `timeoutMs`: the add
   * may still land later, which the id makes harmless.
   */
  async add(name: string, payload: unknown, jobId: string, timeoutMs = DEFAULT_ADD_TIMEOUT_MS) {
    const def = Object.hasOwn(this.definitions, name) ? this.definitions[name] : undefined;
    try {
      await withTimeout(
        this.queue.add(name, payload, {
          jobId,
          attempts: def?.attempts ?? 5,
          backoff: { type: 'exponential', delay: def?.backoffMs ?? 2_000 },
        }),
        timeoutMs,
        'queue_add_timeout',
      );
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Where the job with this id is: a BullMQ state, or 'unknown' when Redis
   * holds no such job (never added, removed, or lost with Redis's data). A
   * failed job comes with its reason. QueueUnavailableError after `timeoutMs`.
   */
  async jobState(jobId: string, timeoutMs = DEFAULT_ADD_TIMEOUT_MS): Promise<JobLookup> {
    try {
      const state = await withTimeout(
        this.queue.getJobState(jobId),
        timeoutMs,
        'queue_state_timeout',
      );
      if (state !== 'failed') return { state };
      const job = await withTimeout(this.queue.getJob(jobId), timeoutMs, 'queue_state_timeout');
      return { state, failedReason: job?.failedReason ?? 'failed' };
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  /** Job counts, or QueueUnavailableError when Redis does not answer in time. */
  async counts(timeoutMs: number): Promise<QueueCounts> {
    if (!this.online()) throw new QueueUnavailableError('redis offline');
    try {
      const c = await withTimeout(
        this.queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active', 'failed'),
        timeoutMs,
        'queue_counts_timeout',
      );
      return {
        waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        failed: c.failed ?? 0,
      };
    } catch (err) {
      throw new QueueUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  async close(): Promise<void> {
    if (!this.online()) {
      // BullMQ's close waits for a connection that may never come.
      this.queue.close().catch(() => {});
      this.redis.disconnect();
      return;
    }
    try {
      await withTimeout(this.queue.close(), 2_000, 'queue_close_timeout');
    } catch (err) {
      this.log.warn({ err: String(err) }, 'queue close failed');
    }
    await closeRedis(this.redis);
  }
}
