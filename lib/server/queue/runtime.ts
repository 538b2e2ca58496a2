import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { moduleLogger } from '../logger';
import { config, workerConcurrency } from '../config';
import { appQueueTarget, producerQueue, queueRuntime as rt } from './producer';
import { OutboxRelay } from './relay';
import { startJobWorker } from './worker';

/**
 * Starts and stops the process's relay and worker (boot and `npm run
 * worker`). The objects themselves live in ./producer.ts.
 */

// Callers and tests reach the shared queue objects through this module too.
export { appQueueTarget, producerQueue, workerRunsHere } from './producer';

const log = moduleLogger('queue-runtime');

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
      reconcileIntervalMs: config().OUTBOX_RECONCILE_INTERVAL_MS,
      reconcileLeaseMs: config().OUTBOX_RECONCILE_LEASE_MS,
    });
    rt.relay.start();
  }
  if (opts.worker && !rt.worker) {
    rt.worker = startJobWorker({
      target: appQueueTarget(),
      db: opts.db,
      concurrency: workerConcurrency(config()),
      // Unset: every lane. A subset runs dedicated workers (e.g. callbacks apart).
      lanes: config().WORKER_LANES,
      hostConcurrency: config().WEBHOOK_HOST_CONCURRENCY,
    });
  }
  log.info(
    {
      relay: true,
      worker: Boolean(rt.worker),
      ...(rt.worker && {
        lanes: Object.fromEntries(
          rt.worker.lanes.map((lane) => [lane, workerConcurrency(config())[lane]]),
        ),
        drainsLegacy: rt.worker.workers.length > rt.worker.lanes.length,
        hostConcurrency: config().WEBHOOK_HOST_CONCURRENCY,
      }),
    },
    'background jobs started',
  );
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
