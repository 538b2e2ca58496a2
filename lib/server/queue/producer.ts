import 'server-only';
import { config } from '../config';
import { DEFAULT_QUEUE_NAME, DEFAULT_QUEUE_PREFIX, JobQueue, type QueueTarget } from './queues';
import type { OutboxRelay } from './relay';
import type { JobWorker } from './worker';

/**
 * The process's queue objects, on `globalThis` so that Next's separate module
 * graphs (instrumentation, routes, pages) share one set of connections. This
 * module reads them; ./runtime.ts starts and stops them. Kept apart so that
 * what every page renders (the queue status) loads the producer only, never
 * the worker and its handlers.
 */
export interface QueueRuntime {
  producer?: JobQueue;
  relay?: OutboxRelay;
  worker?: JobWorker;
}

const g = globalThis as unknown as { __checkpointQueue?: QueueRuntime };
export const queueRuntime: QueueRuntime = g.__checkpointQueue ?? {};
g.__checkpointQueue = queueRuntime;

export function appQueueTarget(): QueueTarget {
  return {
    redisUrl: config().REDIS_URL,
    queueName: DEFAULT_QUEUE_NAME,
    prefix: config().QUEUE_PREFIX ?? DEFAULT_QUEUE_PREFIX,
  };
}

/** The producer queue, connected on first use (never during `next build`). */
export function producerQueue(): JobQueue {
  queueRuntime.producer ??= new JobQueue(appQueueTarget());
  return queueRuntime.producer;
}

/** True when this process consumes jobs. */
export function workerRunsHere(): boolean {
  return Boolean(queueRuntime.worker);
}
