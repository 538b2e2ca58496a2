import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { housekeepingDedupeKey, laneOf } from '../jobs/definitions';
import { type Logger, moduleLogger } from '../logger';
import { enqueueInTx, onRelayNudge } from './outbox';
import { type JobQueue, MAX_JOB_PRIORITY } from './queues';
import { type ReconcileResult, reconcileDispatched } from './reconcile';

/**
 * Moves due OutboxEvent rows to BullMQ (jobId = dedupeKey) and marks them
 * dispatched. Several relays may run at once (app and `npm run worker`):
 * rows are claimed with FOR UPDATE SKIP LOCKED and a short lease, and a row
 * relayed twice after a crash is still one job thanks to its jobId.
 * Dispatched is not done: on its own schedule the relay also re-adds the
 * jobs of dispatched rows that Redis has lost (./reconcile.ts).
 *
 * Fan-out jobs get a priority per host (issue 17 item 3): BullMQ 6 has no
 * per-group fairness, and its `fanout` queue is FIFO, so 2,000 tickets of
 * one host expiring at once held another host's callback back 7-12 s. The
 * n-th fan-out job this relay adds for a host within `fanoutWindowMs` gets
 * priority n: a host's burst runs as 1, 2, 3, … while another host's single
 * job gets 1 and runs next. An approximation of fair queuing: each relay
 * counts only its own adds, and a host's count decays with the window even
 * while its jobs still wait.
 */

export interface RelayOptions {
  db: PrismaClient;
  queue: JobQueue;
  intervalMs?: number;
  batchSize?: number;
  addTimeoutMs?: number;
  /** A claimed row becomes claimable again after this, should the relay die. */
  leaseMs?: number;
  /** Propose a housekeeping run every interval (the app's relays do). */
  scheduleHousekeeping?: boolean;
  /** How often dispatched, unsettled rows are checked against Redis; 0 never. */
  reconcileIntervalMs?: number;
  /** A dispatched row is checked once it has not settled for this long. */
  reconcileLeaseMs?: number;
  /** Fan-out jobs a host had added within this long lower its next one's priority. */
  fanoutWindowMs?: number;
  log?: Logger;
}

/** Defaults of the check for jobs Redis has lost (./reconcile.ts). */
export const RECONCILE_INTERVAL_MS = 30_000;
export const RECONCILE_LEASE_MS = 30_000;
/** Default of `fanoutWindowMs`. */
export const FANOUT_WINDOW_MS = 30_000;

export interface RelayResult {
  claimed: number;
  dispatched: number;
  /** Rows whose add failed or was not tried; they wait for a later run. */
  deferred: number;
  /** True when the run was skipped because Redis is unreachable. */
  offline: boolean;
}

interface ClaimedRow {
  id: bigint;
  kind: string;
  payload: unknown;
  dedupeKey: string;
  attempts: number;
}

const MAX_RETRY_DELAY_MS = 60_000;

export class OutboxRelay {
  private readonly db: PrismaClient;
  private readonly queue: JobQueue;
  private readonly o: Required<Omit<RelayOptions, 'db' | 'queue' | 'log'>>;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private reconciling: Promise<ReconcileResult> | undefined;
  private running: Promise<RelayResult> | undefined;
  private again = false;
  private stopped = false;
  private unregister: (() => void) | undefined;
  private lastHousekeepingKey = '';
  private failing = false;
  private readonly fanoutAdds: HostWindowCounter;

  constructor(opts: RelayOptions) {
    this.db = opts.db;
    this.queue = opts.queue;
    this.log = opts.log ?? moduleLogger('relay');
    this.o = {
      intervalMs: opts.intervalMs ?? 1_000,
      batchSize: opts.batchSize ?? 100,
      addTimeoutMs: opts.addTimeoutMs ?? 2_000,
      leaseMs: opts.leaseMs ?? 30_000,
      scheduleHousekeeping: opts.scheduleHousekeeping ?? false,
      reconcileIntervalMs: opts.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS,
      reconcileLeaseMs: opts.reconcileLeaseMs ?? RECONCILE_LEASE_MS,
      fanoutWindowMs: opts.fanoutWindowMs ?? FANOUT_WINDOW_MS,
    };
    this.fanoutAdds = new HostWindowCounter(this.o.fanoutWindowMs);
  }

  /** Runs on an interval and on every `nudgeRelay()` in this process. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.nudge(), this.o.intervalMs);
    this.timer.unref();
    this.unregister = onRelayNudge(() => this.nudge());
    this.nudge();
    if (this.o.reconcileIntervalMs > 0) {
      this.reconcileTimer = setInterval(() => {
        this.reconcileOnce().catch((err) => {
          if (!this.failing) this.log.error({ err: errText(err) }, 'relay reconcile failed');
        });
      }, this.o.reconcileIntervalMs);
      this.reconcileTimer.unref();
    }
  }

  /**
   * Checks dispatched rows that have not settled within the lease against
   * Redis, and adds the jobs it lost again (./reconcile.ts). One check at a
   * time per relay; a call during one returns that one's result.
   */
  reconcileOnce(): Promise<ReconcileResult> {
    this.reconciling ??= this.reconcileLoop().finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcileLoop(): Promise<ReconcileResult> {
    const total: ReconcileResult = {
      checked: 0,
      redispatched: 0,
      settled: 0,
      live: 0,
      offline: false,
    };
    for (;;) {
      const r = await reconcileDispatched({
        db: this.db,
        queue: this.queue,
        leaseMs: this.o.reconcileLeaseMs,
        batchSize: this.o.batchSize,
        timeoutMs: this.o.addTimeoutMs,
        log: this.log,
      });
      total.checked += r.checked;
      total.redispatched += r.redispatched;
      total.settled += r.settled;
      total.live += r.live;
      total.offline ||= r.offline;
      // Checked rows move a lease ahead, so a full batch means more are due.
      if (r.offline || r.checked < this.o.batchSize || this.stopped) return total;
    }
  }

  /** Runs soon; errors are logged, never thrown (a timer calls this). */
  nudge(): void {
    if (this.stopped) return;
    this.runOnce().then(
      () => {
        if (this.failing) this.log.info('relay recovered');
        this.failing = false;
      },
      (err) => {
        // Once per outage: with the database down this fails every tick.
        if (!this.failing) this.log.error({ err: errText(err) }, 'relay run failed');
        this.failing = true;
      },
    );
  }

  /**
   * One pass over due rows (repeated while full batches keep coming). If a
   * pass is already running, it is followed by one more and its result is
   * returned.
   */
  runOnce(): Promise<RelayResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.timer = undefined;
    this.reconcileTimer = undefined;
    this.unregister?.();
    await this.running?.catch(() => {});
    await this.reconciling?.catch(() => {});
  }

  private async loop(): Promise<RelayResult> {
    const total: RelayResult = { claimed: 0, dispatched: 0, deferred: 0, offline: false };
    do {
      this.again = false;
      if (this.o.scheduleHousekeeping) await this.proposeHousekeeping();
      const r = await this.pass();
      total.claimed += r.claimed;
      total.dispatched += r.dispatched;
      total.deferred += r.deferred;
      total.offline ||= r.offline;
      if (r.offline || r.deferred > 0) break;
      if (r.claimed === this.o.batchSize) this.again = true;
    } while (this.again && !this.stopped);
    return total;
  }

  private async pass(): Promise<RelayResult> {
    // With Redis down, claiming rows would only hold them back: skip.
    if (!this.queue.online()) return { claimed: 0, dispatched: 0, deferred: 0, offline: true };
    const rows = await this.claim();
    const done: bigint[] = [];
    let failed: { row: ClaimedRow; err: string } | undefined;
    for (const row of rows) {
      try {
        await this.queue.add(row.kind, row.payload, row.dedupeKey, this.o.addTimeoutMs, {
          priority: this.priorityOf(row),
        });
        done.push(row.id);
      } catch (err) {
        // Redis is most likely gone: stop, keep the remaining rows for later.
        failed = { row, err: errText(err) };
        break;
      }
    }
    if (done.length > 0) {
      await this.db.outboxEvent.updateMany({
        where: { id: { in: done } },
        data: { dispatchedAt: new Date(), lastError: null },
      });
    }
    const untried = rows.slice(done.length + (failed ? 1 : 0)).map((r) => r.id);
    if (failed) await this.defer(failed.row, failed.err);
    if (untried.length > 0) {
      await this.db.outboxEvent.updateMany({
        where: { id: { in: untried } },
        data: { availableAt: new Date() },
      });
    }
    if (done.length > 0) this.log.debug({ dispatched: done.length }, 'outbox relayed');
    return {
      claimed: rows.length,
      dispatched: done.length,
      deferred: rows.length - done.length,
      offline: false,
    };
  }

  /**
   * Fan-out jobs: 1 + the host's recent adds (see the class comment); 1
   * without a host (rows of older versions). Every fan-out job gets one,
   * since BullMQ takes jobs without a priority before all prioritized ones.
   * Other lanes: none, plain FIFO.
   */
  private priorityOf(row: ClaimedRow): number | undefined {
    if (laneOf(row.kind) !== 'fanout') return undefined;
    const hostId = hostIdOf(row.payload);
    return hostId === undefined ? 1 : this.fanoutAdds.add(hostId);
  }

  /** Claims due rows by pushing their availableAt past a lease. */
  private async claim(): Promise<ClaimedRow[]> {
    // Timestamps are UTC `timestamp(3)` columns (Prisma's convention), hence
    // `now() AT TIME ZONE 'UTC'` rather than a session-zone dependent now().
    // MATERIALIZED: inlined as `id IN (subquery)`, the locking subquery may be
    // rescanned, each rescan skipping the rows just locked, and the UPDATE
    // then claims far more than `batchSize` rows (seen in testing).
    return this.db.$queryRaw<ClaimedRow[]>`
      WITH due AS MATERIALIZED (
        SELECT "id" FROM "OutboxEvent"
         WHERE "dispatchedAt" IS NULL AND "availableAt" <= (now() AT TIME ZONE 'UTC')
         ORDER BY "availableAt", "id"
         LIMIT ${this.o.batchSize}
         FOR UPDATE SKIP LOCKED)
      UPDATE "OutboxEvent" o
         SET "availableAt" = (now() AT TIME ZONE 'UTC') + ${this.o.leaseMs} * interval '1 millisecond'
        FROM due
       WHERE o."id" = due."id"
      RETURNING o."id", o."kind", o."payload", o."dedupeKey", o."attempts"`;
  }

  private async defer(row: ClaimedRow, err: string): Promise<void> {
    const delay = Math.min(1_000 * 2 ** Math.min(row.attempts, 10), MAX_RETRY_DELAY_MS);
    await this.db.outboxEvent.update({
      where: { id: row.id },
      data: {
        attempts: { increment: 1 },
        lastError: err.slice(0, 500),
        availableAt: new Date(Date.now() + delay),
      },
    });
    this.log.warn({ outboxId: String(row.id), kind: row.kind, err }, 'outbox relay deferred');
  }

  /** Every relay proposes the same key per interval; the unique key keeps one. */
  private async proposeHousekeeping(): Promise<void> {
    const key = housekeepingDedupeKey(Date.now());
    if (key === this.lastHousekeepingKey) return;
    await enqueueInTx(this.db, {
      kind: 'housekeeping.run',
      payload: { trigger: 'schedule' },
      dedupeKey: key,
    });
    this.lastHousekeepingKey = key;
  }
}

function hostIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const hostId = (payload as { hostId?: unknown }).hostId;
  return typeof hostId === 'string' && hostId !== '' ? hostId : undefined;
}

/**
 * Counts events per key over a sliding window, in buckets of `windowMs /
 * buckets` (so the window is exact to one bucket). Memory: the keys seen
 * within the last window, each with at most `buckets` entries; idle keys are
 * dropped on a sweep once per window.
 */
export class HostWindowCounter {
  private readonly keys = new Map<string, { total: number; slots: { at: number; n: number }[] }>();
  private readonly bucketMs: number;
  private lastSweep = 0;

  constructor(
    private readonly windowMs = FANOUT_WINDOW_MS,
    buckets = 30,
    private readonly cap = MAX_JOB_PRIORITY,
  ) {
    this.bucketMs = Math.max(1, Math.ceil(windowMs / buckets));
  }

  /** Records one event for `key` at `now`; returns 1 + the events before it in the window, at most `cap`. */
  add(key: string, now = Date.now()): number {
    if (now - this.lastSweep >= this.windowMs) this.sweep(now);
    let entry = this.keys.get(key);
    if (!entry) {
      entry = { total: 0, slots: [] };
      this.keys.set(key, entry);
    }
    this.expire(entry, now);
    const before = entry.total;
    const last = entry.slots.at(-1);
    const at = now - (now % this.bucketMs);
    if (last && last.at === at) last.n++;
    else entry.slots.push({ at, n: 1 });
    entry.total++;
    return Math.min(1 + before, this.cap);
  }

  /** Events for `key` within the window ending at `now`. */
  count(key: string, now = Date.now()): number {
    const entry = this.keys.get(key);
    if (!entry) return 0;
    this.expire(entry, now);
    return entry.total;
  }

  /** Keys currently held (for tests of the sweep). */
  get size(): number {
    return this.keys.size;
  }

  private expire(entry: { total: number; slots: { at: number; n: number }[] }, now: number): void {
    // A bucket leaves once all of it is older than the window.
    while (entry.slots.length > 0 && entry.slots[0].at + this.bucketMs <= now - this.windowMs) {
      entry.total -= (entry.slots.shift() as { n: number }).n;
    }
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, entry] of this.keys) {
      this.expire(entry, now);
      if (entry.total === 0) this.keys.delete(key);
    }
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
