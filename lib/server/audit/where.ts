import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { prefixSuccessor, sortsByCodePoint } from './collation';
import type { AuditFilters } from './filters';

/** `LIKE` treats `%`, `_` and `\` specially; a reason prefix means the literal text. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Moments are compared as UTC `timestamp(3)`, the type Prisma stores. */
export function utcTimestamp(date: Date): Prisma.Sql {
  return Prisma.sql`${date.toISOString().slice(0, 23)}::timestamp(3)`;
}

export type WhereOptions = {
  /** The database sorts by code point (collation.ts): a reason prefix may use the index range. */
  codePointOrder?: boolean;
};

/**
 * The filters as a SQL condition over `"InterceptionRecord" r`. Every
 * value is a bound parameter. Each filter an index can narrow has one
 * (prisma/schema.prisma, EXPLAINed at 1M records): `(column, receivedAt)`
 * for the equality filters (point as `(point, decision, receivedAt)`), partial indexes for the rare values of the
 * flags (host errors, fold-truncated, resolved-by approval/rejection, a
 * mode other than enforce), so the planner can start from the narrowest.
 * The common values (resolved-by none, not fold-truncated, enforce) match
 * most rows: the `receivedAt` scan finds a page of them at once and the
 * capped count stops early. Conditions are spelled as the partial
 * indexes' predicates so the planner can prove that they apply.
 */
export function whereClause(f: AuditFilters, options: WhereOptions = {}): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (f.sessionId !== undefined) parts.push(Prisma.sql`r."sessionId" = ${f.sessionId}`);
  if (f.agentId !== undefined) parts.push(Prisma.sql`r."agentId" = ${f.agentId}`);
  if (f.hostId !== undefined) parts.push(Prisma.sql`r."hostId" = ${f.hostId}::uuid`);
  if (f.point !== undefined) parts.push(Prisma.sql`r."interceptionPoint" = ${f.point}`);
  if (f.decision !== undefined) parts.push(Prisma.sql`r.decision = ${f.decision}`);
  if (f.reasonPrefix !== undefined) {
    if (options.codePointOrder) {
      // Exactly the rows LIKE would match, as a range the `reason` btree
      // serves. Not both: the planner multiplies their selectivities,
      // underestimates the match ~36× and may pick a plan ~30× slower.
      parts.push(Prisma.sql`r.reason >= ${f.reasonPrefix}`);
      const upper = prefixSuccessor(f.reasonPrefix);
      if (upper !== null) parts.push(Prisma.sql`r.reason < ${upper}`);
    } else {
      parts.push(Prisma.sql`r.reason LIKE ${likePrefix(f.reasonPrefix)}`);
    }
  }
  if (f.resolvedBy === 'none') parts.push(Prisma.sql`r."resolvedBy" IS NULL`);
  else if (f.resolvedBy !== undefined) parts.push(Prisma.sql`r."resolvedBy" = ${f.resolvedBy}`);
  if (f.foldTruncated === true) parts.push(Prisma.sql`r."foldTruncated"`);
  if (f.foldTruncated === false) parts.push(Prisma.sql`r."foldTruncated" IS NOT TRUE`);
  if (f.hostErrorsOnly) parts.push(Prisma.sql`r."hostError"`);
  if (f.mode !== undefined) parts.push(Prisma.sql`r.mode = ${f.mode}`);
  if (f.from) parts.push(Prisma.sql`r."receivedAt" >= ${utcTimestamp(f.from)}`);
  if (f.to) parts.push(Prisma.sql`r."receivedAt" < ${utcTimestamp(f.to)}`);
  return parts.length ? Prisma.join(parts, ' AND ') : Prisma.sql`true`;
}

/** whereClause() with the database's collation looked up when a reason prefix needs it. */
export async function whereFor(f: AuditFilters): Promise<Prisma.Sql> {
  const codePointOrder = f.reasonPrefix !== undefined && (await sortsByCodePoint());
  return whereClause(f, { codePointOrder });
}
