import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { moduleLogger } from '../logger';
import { connectTicketEventPublisher, onTicketEvent } from './events';
import { EXPIRY_BATCH_SIZE, expireTickets } from './expire';

/** Longest sleep between looks at the earliest deadline (other instances' tickets, missed events). */
export const EXPIRY_MAX_SLEEP_MS = 5_000;
/** Random delay added to a deadline wake-up, so instances do not all claim at the same instant. */
export const EXPIRY_JITTER_MS = 50;
/** Shortest sleep while a due ticket is held by someone else (another scheduler mid-claim, a decision). */
const BUSY_SLEEP_MS = 50;
/** First retry after a database error; doubles up to the longest sleep. */
const FIRST_RETRY_MS = 250;

export interface ExpirySchedulerOptions {
  batchSize?: number;
  maxSleepMs?: number;
  jitterMs?: number;
  /** The database to use (tests); the app's own by default. */
  db?: () => Promise<PrismaClient>;
}

export interface ExpiryScheduler {
  /** A ticket with this deadline exists: wake up for it if it comes before the planned wake-up. */
  wake(expiresAt: Date): void;
  /** Stops the loop; resolves once a running pass has finished. */
  stop(): Promise<void>;
}

const log = moduleLogger('approvals-expiry');

/**
 * Expires tickets at their deadline (issue 17 item 7): sleeps until the
 * earliest pending deadline (one index read, `ApprovalTicket(status,
 * expiresAt)`), then runs the bulk expiry until nothing is due. A `created`
 * event with an earlier deadline (this instance's, or another's through
 * Redis) wakes it early; without Redis it still looks at least every
 * `maxSleepMs`, so it needs only the database. Several schedulers (instances,
 * the worker) may run at once: the claim skips rows another holds. A
 * database error is logged once per outage and retried with back-off; the
 * loop never throws.
 */
export function startExpiryScheduler(opts: ExpirySchedulerOptions = {}): ExpiryScheduler {
  const batchSize = opts.batchSize ?? EXPIRY_BATCH_SIZE;
  const maxSleepMs = opts.maxSleepMs ?? EXPIRY_MAX_SLEEP_MS;
  const jitterMs = opts.jitterMs ?? EXPIRY_JITTER_MS;
  const getDb = opts.db ?? db;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the current sleep ends (ms since epoch); Infinity while a pass runs. */
  let wakeAt = Number.POSITIVE_INFINITY;
  let resolveSleep: (() => void) | undefined;
  /** A deadline announced while a pass ran: the pass's next-deadline read may predate it. */
  let announced: number | undefined;
  let failures = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      resolveSleep = resolve;
      arm(Date.now() + ms);
    });

  function arm(at: number): void {
    if (timer) clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        wakeAt = Number.POSITIVE_INFINITY;
        const r = resolveSleep;
        resolveSleep = undefined;
        r?.();
      },
      Math.max(0, at - Date.now()),
    );
    // Never what keeps a process alive.
    timer.unref();
  }

  function wake(expiresAt: Date): void {
    const at = expiresAt.getTime();
    if (stopped || !Number.isFinite(at)) return;
    if (!resolveSleep) {
      // Mid-pass: the pass decides the next sleep; make it respect this deadline.
      announced = Math.min(announced ?? at, at);
      return;
    }
    const target = at + jitter();
    if (target < wakeAt) arm(target);
  }

  const jitter = () => Math.floor(Math.random() * (jitterMs + 1));

  /** Expires everything due; returns the earliest remaining deadline (ms) or null. */
  async function pass(): Promise<number | null> {
    const prisma = await getDb();
    for (;;) {
      const expired = await expireTickets({ prisma, limit: batchSize });
      if (expired.length < batchSize || stopped) break;
    }
    const rows = await prisma.$queryRaw<{ next: Date | null }[]>`
      SELECT min("expiresAt") AS "next" FROM "ApprovalTicket" WHERE "status" = 'pending'`;
    const next = rows[0]?.next;
    return next ? new Date(next).getTime() : null;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      announced = undefined;
      let delay: number;
      try {
        const next = await pass();
        if (failures > 0) log.info({ failures }, 'expiry scheduler: database reachable again');
        failures = 0;
        const earliest = Math.min(
          next ?? Number.POSITIVE_INFINITY,
          announced ?? Number.POSITIVE_INFINITY,
        );
        const until = earliest - Date.now();
        // Due but not claimed: another scheduler or a decision holds it; look again shortly.
        delay = until <= 0 ? BUSY_SLEEP_MS : Math.min(until + jitter(), maxSleepMs);
      } catch (err) {
        // Once per outage; the recovery is logged above.
        if (failures++ === 0) {
          log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'expiry scheduler: database error, retrying with back-off',
          );
        }
        delay = Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 10), maxSleepMs);
      }
      if (stopped) break;
      await sleep(delay);
    }
  }

  // Open now: a burst of expiries must not queue (and overflow) behind a connecting publisher.
  connectTicketEventPublisher();
  const off = onTicketEvent((e) => {
    if (e.type === 'created' && e.expiresAt) wake(new Date(e.expiresAt));
  });
  // A first pass at once: tickets may have fallen due while no scheduler ran.
  const done = loop();

  return {
    wake,
    async stop() {
      stopped = true;
      off();
      if (timer) clearTimeout(timer);
      timer = undefined;
      resolveSleep?.();
      resolveSleep = undefined;
      await done;
    },
  };
}
