import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import { moduleLogger } from '../logger';
import { DEFAULT_QUEUE_NAME, DEFAULT_QUEUE_PREFIX, JobQueue, type QueueTarget } from './queues';
import { OutboxRelay } from './relay';
import { type JobWorker, startJobWorker } from './worker';

/**
 * The process's queue objects, on `globalThis` so that Next's separate module
 * graphs (instrumentation, routes, pages) share one set of connections.
 */

interface Runtime {
  producer?: JobQueue;
  relay?: OutboxRelay;
  worker?: JobWorker;
}

const g = globalThis as unknown as { __checkpointQueue?: Runtime };
const rt: Runtime = g.__checkpointQueue ?? {};
g.__checkpointQueue = rt;

const log = moduleLogger('queue-runtime');

export function appQueueTarget(): QueueTarget {
  return {
    redisUrl: config().REDIS_URL,
    queueName: DEFAULT_QUEUE_NAME,
    prefix: DEFAULT_QUEUE_PREFIX,
  };
}

/** The producer queue, connected on first use (never during `next build`). */
export function producerQueue(): JobQueue {
  rt.producer ??= new JobQueue(appQueueTarget());
  return rt.producer;
}

export interface BackgroundOptions {
  db: PrismaClient;
  /** Consume jobs in this process. */
  worker: boolean;
}

/**
 * Starts the outbox relay (always: it is cheap, and several relays are safe)
 * and, when asked, the worker. Returns at once; nothing here waits for Redis.
 */
export function startBackground(opts: BackgroundOptions): void {
  if (!rt.relay) {
    rt.relay = new OutboxRelay({
      db: opts.db,
      queue: producerQueue(),
      scheduleHousekeeping: true,
    });
    rt.relay.start();
  }
  if (opts.worker && !rt.worker) {
    rt.worker = startJobWorker({ target: appQueueTarget(), db: opts.db });
  }
  log.info({ relay: true, worker: Boolean(rt.worker) }, 'background jobs started');
}

/** True when this process consumes jobs. */
export function workerRunsHere(): boolean {
  return Boolean(rt.worker);
}

/** Stops relay, worker and producer, in that order (the worker finishes its jobs). */
export async function stopBackground(): Promise<void> {
  const { relay, worker, producer } = rt;
  rt.relay = undefined;
  rt.worker = undefined;
  rt.producer = undefined;
  await relay?.stop();
  await worker?.close();
  await producer?.close();
}
