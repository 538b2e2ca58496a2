import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { withTimeout } from './connection';
import type { JobQueue } from './queues';
import { producerQueue } from './producer';

export interface QueueStatus {
  redis: 'online' | 'offline';
  /** Jobs in BullMQ not yet picked up (last known value while offline). */
  waiting: number;
  /** Outbox rows not yet handed to BullMQ. */
  outboxPending: number;
  failed: number;
}

/** Each probe gets this long; the header renders on every page. */
export const STATUS_PROBE_TIMEOUT_MS = 150;
const CACHE_MS = 2_000;

interface Cache {
  at: number;
  value?: QueueStatus;
  inflight?: Promise<QueueStatus>;
}
const g = globalThis as unknown as { __checkpointQueueStatus?: Cache };
const cache: Cache = g.__checkpointQueueStatus ?? { at: 0 };
g.__checkpointQueueStatus = cache;

/**
 * The queue's state for the header and /status. Answers within about
 * STATUS_PROBE_TIMEOUT_MS even when Redis or the database hangs, and is
 * cached for two seconds so that page renders don't each probe.
 */
export async function getQueueStatus(): Promise<QueueStatus> {
  if (cache.value && Date.now() - cache.at < CACHE_MS) return cache.value;
  cache.inflight ??= (async () => {
    try {
      const client = await withTimeout(db(), STATUS_PROBE_TIMEOUT_MS, 'db_open_timeout').catch(
        () => undefined,
      );
      const value = await readQueueStatus({ queue: producerQueue(), db: client }, cache.value);
      cache.value = value;
      cache.at = Date.now();
      return value;
    } finally {
      cache.inflight = undefined;
    }
  })();
  return cache.inflight;
}

/**
 * Probes a queue and an outbox once (no cache). `previous` supplies the
 * numbers that cannot be read right now.
 */
export async function readQueueStatus(
  deps: { queue: JobQueue; db: PrismaClient | undefined; timeoutMs?: number },
  previous?: QueueStatus,
): Promise<QueueStatus> {
  const timeoutMs = deps.timeoutMs ?? STATUS_PROBE_TIMEOUT_MS;
  const [counts, outboxPending] = await Promise.all([
    deps.queue.counts(timeoutMs).catch(() => undefined),
    deps.db
      ? withTimeout(
          deps.db.outboxEvent.count({ where: { dispatchedAt: null } }),
          timeoutMs,
          'outbox_count_timeout',
        ).catch(() => previous?.outboxPending ?? 0)
      : (previous?.outboxPending ?? 0),
  ]);
  return {
    redis: counts ? 'online' : 'offline',
    waiting: counts?.waiting ?? previous?.waiting ?? 0,
    outboxPending,
    failed: counts?.failed ?? previous?.failed ?? 0,
  };
}
