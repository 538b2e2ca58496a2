import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Logger } from '../logger';
import type { JobLookup, JobQueue } from './queues';

/**
 * PostgreSQL, not Redis, says what work is owed. An outbox row stays owed
 * after the relay hands its job to Redis (`dispatchedAt`) until the job is
 * settled (`settledAt`: the worker writes it when the handler has run, see
 * worker.ts). A job is looked up in its kind's lane, then in the queue of
 * versions before lanes (a job still waiting there is not lost). Redis may still lose the job — a crash between AOF fsyncs, no
 * persistence, a failover to a replica that had not caught up — and then
 * nothing would ever run it. So once a lease has passed, a row that is not
 * settled is looked up by its job id (its dedupeKey):
 *
 * - no such job in Redis: it was lost; it is added again under the same id
 *   (the work's own ids, such as a callback's webhook-id, come from
 *   PostgreSQL, so a receiver sees the same message again, never a new one);
 * - completed: the worker's settle write was lost; settled now;
 * - failed (after its last attempt): settled, with the reason as lastError;
 *   re-adding it would only repeat a retry policy that already ran out;
 * - any other state (waiting, delayed for a backoff, active): left alone, and
 *   looked at again a lease later. A job retrying for minutes is not copied.
 *
 * Checking bumps `dispatchedAt`, so several relays check a row once per lease
 * between them, and housekeeping's age rule only ever sees settled rows or
 * rows no relay has looked at for days.
 */

export interface ReconcileOptions {
  db: PrismaClient;
  queue: JobQueue;
  /** A row dispatched this long ago and still not settled is checked. */
  leaseMs: number;
  batchSize: number;
  timeoutMs: number;
  log: Logger;
}

export interface ReconcileResult {
  checked: number;
  /** Jobs Redis had lost, added again under the same id. */
  redispatched: number;
  /** Rows whose job had finished (completed or failed for good). */
  settled: number;
  /** Rows whose job is still in Redis (waiting, delayed, active). */
  live: number;
  offline: boolean;
}

interface OwedRow {
  id: bigint;
  kind: string;
  payload: unknown;
  dedupeKey: string;
}

/** One pass over due rows (at most `batchSize`). Redis errors end it early. */
export async function reconcileDispatched(o: ReconcileOptions): Promise<ReconcileResult> {
  const result: ReconcileResult = {
    checked: 0,
    redispatched: 0,
    settled: 0,
    live: 0,
    offline: false,
  };
  if (!o.queue.online()) return { ...result, offline: true };
  const rows = await claimOwed(o);
  let lookups: JobLookup[];
  try {
    // One round trip's worth of lookups at once, not one per row.
    lookups = await Promise.all(
      rows.map((r) => o.queue.jobState(r.dedupeKey, r.kind, o.timeoutMs)),
    );
  } catch (err) {
    // Redis went away: the rows claimed stay owed and come back after a lease.
    o.log.warn({ err: errText(err) }, 'reconcile stopped');
    return { ...result, checked: rows.length, offline: true };
  }
  const redispatched: bigint[] = [];
  for (const [i, row] of rows.entries()) {
    const { state, failedReason } = lookups[i];
    result.checked++;
    if (state === 'completed' || state === 'failed') {
      await settleOutboxRow(o.db, row.dedupeKey, failedReason);
      result.settled++;
    } else if (state !== 'unknown') {
      result.live++;
    } else {
      try {
        await o.queue.add(row.kind, row.payload, row.dedupeKey, o.timeoutMs);
      } catch (err) {
        o.log.warn({ err: errText(err) }, 'reconcile stopped');
        result.offline = true;
        break;
      }
      redispatched.push(row.id);
      o.log.warn(
        { outboxId: String(row.id), kind: row.kind, jobId: row.dedupeKey },
        'job missing from Redis: dispatched again',
      );
    }
  }
  result.redispatched = redispatched.length;
  if (redispatched.length > 0) {
    await o.db.outboxEvent.updateMany({
      // A job that already ran and failed for good keeps its reason.
      where: { id: { in: redispatched }, lastError: null },
      data: { lastError: 'job_lost_redispatched' },
    });
  }
  return result;
}

/** Claims due rows by moving their `dispatchedAt` to now (the next check is a lease away). */
function claimOwed(o: ReconcileOptions): Promise<OwedRow[]> {
  // UTC timestamps and MATERIALIZED for the reasons given in relay.ts's claim.
  return o.db.$queryRaw<OwedRow[]>`
    WITH due AS MATERIALIZED (
      SELECT "id" FROM "OutboxEvent"
       WHERE "settledAt" IS NULL AND "dispatchedAt" IS NOT NULL
         AND "dispatchedAt" <= (now() AT TIME ZONE 'UTC') - ${o.leaseMs} * interval '1 millisecond'
       ORDER BY "dispatchedAt", "id"
       LIMIT ${o.batchSize}
       FOR UPDATE SKIP LOCKED)
    UPDATE "OutboxEvent" r
       SET "dispatchedAt" = (now() AT TIME ZONE 'UTC')
      FROM due
     WHERE r."id" = due."id"
    RETURNING r."id", r."kind", r."payload", r."dedupeKey"`;
}

/**
 * Marks the outbox row behind job `jobId` settled: the work is done (or, with
 * `failure`, given up after its last attempt). A row not yet marked
 * dispatched (its add landed but the mark did not) is marked too, so the
 * relay never hands finished work over again. Jobs that did not come from
 * the outbox match no row. Idempotent.
 */
export async function settleOutboxRow(
  db: PrismaClient,
  jobId: string,
  failure?: string,
): Promise<void> {
  const error = failure === undefined ? null : `job_failed: ${failure}`.slice(0, 500);
  await db.$executeRaw`
    UPDATE "OutboxEvent"
       SET "settledAt" = (now() AT TIME ZONE 'UTC'),
           "dispatchedAt" = COALESCE("dispatchedAt", (now() AT TIME ZONE 'UTC')),
           "lastError" = COALESCE(${error}::text, "lastError")
     WHERE "dedupeKey" = ${jobId} AND "settledAt" IS NULL`;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
