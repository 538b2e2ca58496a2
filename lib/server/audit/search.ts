import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { auditDb } from '@/lib/server/db/audit-db';
import { type AuditActor, assertAuditor } from './access';
import { type Cursor, decodeCursor, encodeCursor } from './cursor';
import type { AuditFilters } from './filters';
import { type AuditRow, ROW_COLUMNS } from './rows';
import { utcTimestamp, whereFor } from './where';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Counting stops here: past it the page says "10,000+" rather than scan a huge match. */
export const COUNT_CAP = 10_000;

/** `estimated`: the exact count ran past its budget; `value` is the planner's estimate. */
export type ResultCount = { value: number; capped: boolean; estimated?: true };

/**
 * How long the search page's exact count may take. Past it the planner's
 * row estimate stands in, labelled as one (issue 16 item 2: a count over
 * filters that are each common but rare together would otherwise visit
 * every candidate row).
 */
export const COUNT_BUDGET_MS = 100;

export type SearchPage = {
  rows: AuditRow[];
  /** Cursor for the next (older) page, or null on the last page. */
  nextCursor: string | null;
  count: ResultCount;
};

export type Direction = 'newest' | 'oldest';

/**
 * One keyset step: the rows after `cursor` in (receivedAt, id) order.
 * The row-value comparison keeps ties in the same millisecond in order;
 * the `receivedAt` btree (or a filter's `(column, receivedAt)` index)
 * serves it without a sort of the whole match.
 */
export async function selectRows(
  filters: AuditFilters,
  cursor: Cursor | null,
  limit: number,
  direction: Direction = 'newest',
): Promise<AuditRow[]> {
  const prisma = await auditDb();
  const after = cursor
    ? direction === 'newest'
      ? Prisma.sql`AND (r."receivedAt", r.id) < (${utcTimestamp(new Date(cursor.receivedAt))}, ${cursor.id}::bigint)`
      : Prisma.sql`AND (r."receivedAt", r.id) > (${utcTimestamp(new Date(cursor.receivedAt))}, ${cursor.id}::bigint)`
    : Prisma.empty;
  const order =
    direction === 'newest'
      ? Prisma.sql`ORDER BY r."receivedAt" DESC, r.id DESC`
      : Prisma.sql`ORDER BY r."receivedAt" ASC, r.id ASC`;
  return prisma.$queryRaw<AuditRow[]>`
    SELECT ${ROW_COLUMNS}
    FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
    WHERE ${await whereFor(filters)} ${after}
    ${order}
    LIMIT ${limit}`;
}

/**
 * Exact up to `cap`; past it, `{value: cap, capped: true}` ("10,000+").
 * With `budgetMs`, a count that takes longer gives way to the estimate.
 */
export async function countRows(
  filters: AuditFilters,
  cap = COUNT_CAP,
  opts: { budgetMs?: number } = {},
): Promise<ResultCount> {
  const prisma = await auditDb();
  const where = await whereFor(filters);
  const exact = Prisma.sql`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM "InterceptionRecord" r WHERE ${where} LIMIT ${cap + 1}
    ) AS matched`;
  const budget = opts.budgetMs;
  let n: number;
  if (budget === undefined) {
    n = (await prisma.$queryRaw<{ n: number }[]>(exact))[0]?.n ?? 0;
  } else {
    try {
      n = await prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(
          `SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(budget))}`,
        );
        return (await tx.$queryRaw<{ n: number }[]>(exact))[0]?.n ?? 0;
      });
    } catch (err) {
      if (!isStatementTimeout(err)) throw err;
      return estimateRows(where, cap);
    }
  }
  return n > cap ? { value: cap, capped: true } : { value: n, capped: false };
}

/** PostgreSQL's query_canceled (57014), however the driver wraps it. */
function isStatementTimeout(err: unknown): boolean {
  const text = `${err instanceof Error ? err.message : ''} ${JSON.stringify(err) ?? ''}`;
  return /57014|statement timeout/i.test(text);
}

/** The planner's estimate of the match (statistics only, nothing read). */
async function estimateRows(where: Prisma.Sql, cap: number): Promise<ResultCount> {
  const prisma = await auditDb();
  const plan = Prisma.sql`SELECT 1 FROM "InterceptionRecord" r WHERE ${where}`;
  const [row] = await prisma.$queryRawUnsafe<
    { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]
  >(`EXPLAIN (FORMAT JSON) ${plan.text}`, ...plan.values);
  const rows = Math.round(row?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
  return rows > cap
    ? { value: cap, capped: true, estimated: true }
    : { value: rows, capped: false, estimated: true };
}

/**
 * The audit search: newest first, one page after `cursor`, with the
 * match count. Auditors and admins only.
 */
export async function searchRecords(
  actor: AuditActor,
  filters: AuditFilters,
  options: { cursor?: string | null; limit?: number } = {},
): Promise<SearchPage> {
  assertAuditor(actor);
  const limit = Math.min(Math.max(options.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const cursor = options.cursor ? decodeCursor(options.cursor) : null;
  // One extra row tells whether another page exists without a second query.
  const [rows, count] = await Promise.all([
    selectRows(filters, cursor, limit + 1),
    countRows(filters, COUNT_CAP, { budgetMs: COUNT_BUDGET_MS }),
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? encodeCursor({ receivedAt: last.receivedAt, id: last.id }) : null;
  return { rows: page, nextCursor, count };
}
