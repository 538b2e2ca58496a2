import 'server-only';

/**
 * Tells a dependency outage from a bug. A request that failed because the
 * database could not be reached, its pool had no free connection, or a
 * statement hit `statement_timeout` / `lock_timeout` (db/open.ts) is not a
 * 500: it is 503 with `Retry-After`, so clients and load balancers back off
 * and retry instead of reporting a server bug. Anything not recognised here
 * stays a 500 `internal`.
 *
 * Prisma (with the pg driver adapter) reports these several ways: its own
 * `P…` codes on the error, the adapter's error kind and the PostgreSQL
 * SQLSTATE under `meta.driverAdapterError.cause`, or, for pg-pool's own
 * timeouts, a plain Error whose message is the only clue. All are walked.
 */

export type OutageCode = 'database_unavailable' | 'database_timeout' | 'queue_unavailable';

/** Seconds a client should wait before retrying, per outage. */
export const RETRY_AFTER_S: Readonly<Record<OutageCode, number>> = {
  database_unavailable: 5,
  database_timeout: 2,
  queue_unavailable: 5,
};

export const OUTAGE_MESSAGES: Readonly<Record<OutageCode, string>> = {
  database_unavailable: 'The database is unavailable right now; retry later.',
  database_timeout: 'The database did not answer in time (busy or locked); retry later.',
  queue_unavailable: 'The job queue is unavailable right now; retry later.',
};

/** Prisma error codes: P1001 unreachable, P1002 connect timed out, P1017 closed, P2024 pool timeout, P2037 too many connections. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024', 'P2037']);
/** P1008 socket timeout; P2028 a transaction that could not start, or expired, in its time. */
const PRISMA_TIMEOUT = new Set(['P1008', 'P2028']);
/** The pg driver adapter's error kinds. */
const KIND_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'TooManyConnections',
]);
const KIND_TIMEOUT = new Set(['SocketTimeout']);
/**
 * SQLSTATEs: 57014 query_canceled (statement_timeout), 55P03
 * lock_not_available (lock_timeout), 25P03 idle-in-transaction timeout.
 */
const SQLSTATE_TIMEOUT = new Set(['57014', '55P03', '25P03']);
/**
 * Class 08 connection exceptions, 53300 too many connections, 57P01–57P03
 * server shutting down or starting.
 */
const SQLSTATE_UNAVAILABLE = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);
/** pg and pg-pool raise these as plain Errors, with no code. */
const PG_UNAVAILABLE_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /Connection terminated (?:due to connection timeout|unexpectedly)/i,
];

type Node = {
  code?: unknown;
  errorCode?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  errors?: unknown;
};

function classifyOne(o: Node): OutageCode | null {
  const codes = [o.code, o.errorCode, o.originalCode].filter((c) => typeof c === 'string');
  for (const c of codes as string[]) {
    if (Object.hasOwn(RETRY_AFTER_S, c)) return c as OutageCode;
    if (PRISMA_TIMEOUT.has(c) || SQLSTATE_TIMEOUT.has(c)) return 'database_timeout';
    if (PRISMA_UNAVAILABLE.has(c) || SQLSTATE_UNAVAILABLE.has(c)) return 'database_unavailable';
  }
  if (typeof o.kind === 'string') {
    if (KIND_TIMEOUT.has(o.kind)) return 'database_timeout';
    if (KIND_UNAVAILABLE.has(o.kind)) return 'database_unavailable';
  }
  if (
    typeof o.message === 'string' &&
    PG_UNAVAILABLE_MESSAGES.some((re) => re.test(o.message as string))
  )
    return 'database_unavailable';
  return null;
}

/** The outage behind `err` (its causes included), or null for anything else. */
export function classifyOutage(err: unknown): OutageCode | null {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  // A timeout found anywhere wins over "unavailable": a cancelled statement
  // also surfaces as a closed connection further down.
  let found: OutageCode | null = null;
  while (stack.length > 0 && seen.size < 32) {
    const o = stack.pop();
    if (!o || typeof o !== 'object' || seen.has(o)) continue;
    seen.add(o);
    const n = o as Node;
    const c = classifyOne(n);
    if (c === 'database_timeout' || c === 'queue_unavailable') return c;
    found ??= c;
    stack.push(n.cause, n.meta?.driverAdapterError);
    if (Array.isArray(n.errors)) stack.push(...n.errors);
  }
  return found;
}
