import 'server-only';
import { dbInfo } from '@/lib/server/db';
import type { Db } from './store';

/**
 * The log has one writer at a time. On PostgreSQL a transaction-scoped
 * advisory lock serializes appenders across processes (app instances with
 * RUN_WORKER, workers); on PGlite there is one process per data directory,
 * and the in-process queue below serializes the callers inside it (the
 * appender loop and an on-demand append), since one connection cannot
 * wait on a lock it holds.
 */

const LOG_APPEND_LOCK = 1819240295; // "logg"

export async function lockLog(tx: Db): Promise<void> {
  if (dbInfo().kind === 'postgres') {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${LOG_APPEND_LOCK})`);
  }
}

const g = globalThis as unknown as { __checkpointLogQueue?: Promise<unknown> };

/**
 * PGlite: runs `fn` after every earlier call in this process has settled.
 * PostgreSQL: runs it at once (the advisory lock orders the transactions,
 * across processes too, and the tests race them through it).
 */
export function serialized<T>(fn: () => Promise<T>): Promise<T> {
  if (dbInfo().kind === 'postgres') return fn();
  const previous = g.__checkpointLogQueue ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(fn);
  g.__checkpointLogQueue = run.catch(() => undefined);
  return run;
}
