import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { withTimeout } from './connection';
import { producerQueue } from './producer';
import { type JobQueue, type LaneCounts, sum } from './queues';

/**
 * The queue's counters for the header, /status, /api/ready and /metrics.
 * Only work that is due counts as waiting: a job delayed until later (a
 * retry in back-off, an expiry at a ticket's deadline, tomorrow's retention
 * run) is `scheduled`, so an idle system shows nothing waiting.
 */
export interface QueueStatus {
  redis: 'online' | 'offline';
  /** Due jobs in BullMQ not yet picked up (waiting, prioritized); last known while offline. */
  waiting: number;
  /** Not due yet: BullMQ's delayed jobs plus `outboxScheduled`. */
  scheduled: number;
  /** Outbox rows whose time has not come (part of `scheduled`). */
  outboxScheduled: number;
  /** Due outbox rows not yet handed to BullMQ (they pile up while Redis is down). */
  outboxPending: number;
  failed: number;
  /** Per queue (each lane, and the pre-lane queue); absent while Redis is offline. */
  lanes?: LaneCounts[];
}

/**
 * One probe's budget. A loaded Redis can take well over 100 ms to answer
 * the counts; a smaller budget reported a healthy Redis as offline.
 */
export const STATUS_PROBE_TIMEOUT_MS = 1_000;
/** How long a page header waits for a fresh probe before showing the last reading. */
export const HEADER_WAIT_MS = 150;
/** Consecutive failed probes before a Redis that was online is reported offline. */
export const FAILURES_TO_OFFLINE = 2;
const CACHE_MS = 2_000;

type Probe = (previous?: QueueStatus) => Promise<QueueStatus>;

/**
 * Shares probes between callers (one probe per CACHE_MS) and keeps the
 * Redis state from flapping: online → offline only after
 * FAILURES_TO_OFFLINE failed probes in a row, offline → online on the first
 * success. The first reading is taken as it is.
 */
export class QueueStatusTracker {
  private value?: QueueStatus;
  private at = 0;
  private inflight?: Promise<QueueStatus>;
  private failures = 0;

  constructor(
    private readonly probe: Probe,
    private readonly opts: { cacheMs: number; failuresToOffline: number } = {
      cacheMs: CACHE_MS,
      failuresToOffline: FAILURES_TO_OFFLINE,
    },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The current status. With a previous reading, waits at most `maxWaitMs`
   * for a fresh one and otherwise answers the previous (the probe goes on
   * and lands in the cache).
   */
  async get(maxWaitMs = Number.POSITIVE_INFINITY): Promise<QueueStatus> {
    if (this.value && this.now() - this.at < this.opts.cacheMs) return this.value;
    const fresh = this.refresh();
    const stale = this.value;
    if (!stale || !Number.isFinite(maxWaitMs)) return fresh;
    return withTimeout(fresh, maxWaitMs, 'queue_status_wait').catch(() => stale);
  }

  private refresh(): Promise<QueueStatus> {
    this.inflight ??= (async () => {
      try {
        const previous = this.value;
        const reading = await this.probe(previous).catch(
          (): QueueStatus => offlineReading(previous),
        );
        this.value = this.settle(reading, previous);
        this.at = this.now();
        return this.value;
      } finally {
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }

  private settle(reading: QueueStatus, previous: QueueStatus | undefined): QueueStatus {
    if (reading.redis === 'online') {
      this.failures = 0;
      return reading;
    }
    this.failures += 1;
    const holdOnline = previous?.redis === 'online' && this.failures < this.opts.failuresToOffline;
    return holdOnline ? { ...reading, redis: 'online' } : reading;
  }
}

function offlineReading(previous?: QueueStatus): QueueStatus {
  return {
    redis: 'offline',
    waiting: previous?.waiting ?? 0,
    scheduled: previous?.scheduled ?? 0,
    outboxScheduled: previous?.outboxScheduled ?? 0,
    outboxPending: previous?.outboxPending ?? 0,
    failed: previous?.failed ?? 0,
  };
}

const g = globalThis as unknown as { __checkpointQueueTracker?: QueueStatusTracker };

function tracker(): QueueStatusTracker {
  g.__checkpointQueueTracker ??= new QueueStatusTracker(async (previous) => {
    const client = await withTimeout(db(), STATUS_PROBE_TIMEOUT_MS, 'db_open_timeout').catch(
      () => undefined,
    );
    return readQueueStatus({ queue: producerQueue(), db: client }, previous);
  });
  return g.__checkpointQueueTracker;
}

/**
 * This process's queue status. `maxWaitMs`: how long to wait for a fresh
 * probe when an earlier reading exists (the header renders on every page
 * and must not wait on a slow Redis; readiness waits for the probe).
 */
export function getQueueStatus(opts: { maxWaitMs?: number } = {}): Promise<QueueStatus> {
  return tracker().get(opts.maxWaitMs ?? HEADER_WAIT_MS);
}

/** BullMQ's counts over every lane, split into due and not yet due; throws when Redis does not answer. */
async function readCounts(queue: JobQueue, timeoutMs: number) {
  const lanes = await queue.laneCounts(timeoutMs);
  return {
    waiting: sum(lanes, (l) => l.waiting),
    delayed: sum(lanes, (l) => l.delayed),
    failed: sum(lanes, (l) => l.failed),
    lanes,
  };
}

/** Outbox rows not yet dispatched, split by whether their time has come. */
async function readOutbox(prisma: PrismaClient, now: Date) {
  const [due, later] = await Promise.all([
    prisma.outboxEvent.count({ where: { dispatchedAt: null, availableAt: { lte: now } } }),
    prisma.outboxEvent.count({ where: { dispatchedAt: null, availableAt: { gt: now } } }),
  ]);
  return { due, later };
}

/**
 * Probes a queue and an outbox once (no cache, no hysteresis). `previous`
 * supplies the numbers that cannot be read right now.
 */
export async function readQueueStatus(
  deps: { queue: JobQueue; db: PrismaClient | undefined; timeoutMs?: number; now?: Date },
  previous?: QueueStatus,
): Promise<QueueStatus> {
  const timeoutMs = deps.timeoutMs ?? STATUS_PROBE_TIMEOUT_MS;
  const [counts, outbox] = await Promise.all([
    readCounts(deps.queue, timeoutMs).catch(() => undefined),
    deps.db
      ? withTimeout(readOutbox(deps.db, deps.now ?? new Date()), timeoutMs, 'outbox_count_timeout')
          // Unreadable: keep the earlier numbers (the scheduled share is unknown).
          .catch(() => undefined)
      : undefined,
  ]);
  const delayed = counts?.delayed ?? (previous ? previous.scheduled - previous.outboxScheduled : 0);
  const outboxScheduled = outbox?.later ?? previous?.outboxScheduled ?? 0;
  return {
    redis: counts ? 'online' : 'offline',
    waiting: counts?.waiting ?? previous?.waiting ?? 0,
    scheduled: delayed + outboxScheduled,
    outboxScheduled,
    outboxPending: outbox?.due ?? previous?.outboxPending ?? 0,
    failed: counts?.failed ?? previous?.failed ?? 0,
    ...(counts ? { lanes: counts.lanes } : {}),
  };
}
