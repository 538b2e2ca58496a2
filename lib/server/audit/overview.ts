import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { auditDb } from '@/lib/server/db/audit-db';
import { type AuditActor, assertAuditor } from './access';

/**
 * The overview's charts: the signals an operator alerts on, bucketed with
 * date_trunc over a fixed range. Every series has a value for every bucket
 * (zeros filled in), so charts and tables line up.
 */

export const OVERVIEW_RANGES = {
  '24h': { label: '24 hours', hours: 24, unit: 'hour' },
  '7d': { label: '7 days', hours: 24 * 7, unit: 'day' },
  '30d': { label: '30 days', hours: 24 * 30, unit: 'day' },
} as const;
export type OverviewRange = keyof typeof OVERVIEW_RANGES;

export function parseRange(raw: unknown): OverviewRange {
  return typeof raw === 'string' && raw in OVERVIEW_RANGES ? (raw as OverviewRange) : '24h';
}

/** How many deny reasons get a series of their own; the rest are "other". */
export const TOP_REASONS = 5;

export type Series = { name: string; values: number[] };

export type Overview = {
  range: OverviewRange;
  /** Bucket starts, ISO 8601 UTC. */
  buckets: string[];
  emissions: number[];
  deniesByReason: Series[];
  /** Fractions 0..1 of the bucket's emissions (0 where there were none). */
  hostErrorRate: number[];
  foldTruncatedRate: number[];
  approvals: Series[];
  totals: { emissions: number; denies: number; hostErrors: number; requested: number };
};

type Unit = 'hour' | 'day';

function bucketStarts(now: Date, hours: number, unit: Unit): Date[] {
  const step = unit === 'hour' ? 3600_000 : 86_400_000;
  const end = new Date(Math.floor(now.getTime() / step) * step);
  const count = Math.round((hours * 3600_000) / step);
  return Array.from({ length: count }, (_, i) => new Date(end.getTime() - (count - 1 - i) * step));
}

const iso = (d: Date) => d.toISOString();

export async function getOverview(
  actor: AuditActor,
  range: OverviewRange,
  now = new Date(),
): Promise<Overview> {
  assertAuditor(actor);
  const { hours, unit } = OVERVIEW_RANGES[range];
  const starts = bucketStarts(now, hours, unit);
  const since = (starts[0] as Date).toISOString().slice(0, 23);
  const index = new Map(starts.map((d, i) => [iso(d), i]));
  const zeros = () => starts.map(() => 0);
  const prisma = await auditDb();
  const bucket = (col: Prisma.Sql) =>
    Prisma.sql`to_char(date_trunc(${unit}, ${col}), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

  const [emissionRows, reasonRows, ticketRows, decidedRows] = await Promise.all([
    prisma.$queryRaw<{ b: string; n: number; errors: number; truncated: number }[]>`
      SELECT ${bucket(Prisma.sql`"receivedAt"`)} AS b, count(*)::int AS n,
        count(*) FILTER (WHERE "hostError")::int AS errors,
        count(*) FILTER (WHERE "foldTruncated" IS TRUE)::int AS truncated
      FROM "InterceptionRecord" WHERE "receivedAt" >= ${since}::timestamp(3)
      GROUP BY 1`,
    prisma.$queryRaw<{ b: string; reason: string; n: number }[]>`
      SELECT ${bucket(Prisma.sql`"receivedAt"`)} AS b, coalesce(reason, '(none)') AS reason,
        count(*)::int AS n
      FROM "InterceptionRecord"
      WHERE "receivedAt" >= ${since}::timestamp(3) AND decision = 'deny'
      GROUP BY 1, 2`,
    prisma.$queryRaw<{ b: string; n: number }[]>`
      SELECT ${bucket(Prisma.sql`"createdAt"`)} AS b, count(*)::int AS n
      FROM "ApprovalTicket" WHERE "createdAt" >= ${since}::timestamp(3) GROUP BY 1`,
    // An expired ticket may have no decidedAt: it counts at its deadline.
    prisma.$queryRaw<{ b: string; status: string; n: number }[]>`
      SELECT ${bucket(Prisma.sql`coalesce("decidedAt", "expiresAt")`)} AS b, status::text AS status,
        count(*)::int AS n
      FROM "ApprovalTicket"
      WHERE status <> 'pending' AND coalesce("decidedAt", "expiresAt") >= ${since}::timestamp(3)
        AND coalesce("decidedAt", "expiresAt") <= ${now.toISOString().slice(0, 23)}::timestamp(3)
      GROUP BY 1, 2`,
  ]);

  const emissions = zeros();
  const errors = zeros();
  const truncated = zeros();
  for (const r of emissionRows) {
    const i = index.get(r.b);
    if (i === undefined) continue;
    emissions[i] = r.n;
    errors[i] = r.errors;
    truncated[i] = r.truncated;
  }
  const rate = (part: number[]) =>
    part.map((v, i) => (emissions[i] ? v / (emissions[i] as number) : 0));

  return {
    range,
    buckets: starts.map(iso),
    emissions,
    deniesByReason: topReasons(reasonRows, index, zeros),
    hostErrorRate: rate(errors),
    foldTruncatedRate: rate(truncated),
    approvals: approvalSeries(ticketRows, decidedRows, index, zeros),
    totals: {
      emissions: sum(emissions),
      denies: sum(reasonRows.map((r) => r.n)),
      hostErrors: sum(errors),
      requested: sum(ticketRows.map((r) => r.n)),
    },
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function topReasons(
  rows: { b: string; reason: string; n: number }[],
  index: Map<string, number>,
  zeros: () => number[],
): Series[] {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.reason, (totals.get(r.reason) ?? 0) + r.n);
  const top = [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_REASONS)
    .map(([reason]) => reason);
  const series = new Map(top.map((reason) => [reason, zeros()]));
  const other = zeros();
  for (const r of rows) {
    const i = index.get(r.b);
    if (i === undefined) continue;
    const values = series.get(r.reason) ?? other;
    values[i] = (values[i] ?? 0) + r.n;
  }
  const out = top.map((name) => ({ name, values: series.get(name) as number[] }));
  if (other.some((v) => v > 0)) out.push({ name: 'other', values: other });
  return out;
}

function approvalSeries(
  requested: { b: string; n: number }[],
  decided: { b: string; status: string; n: number }[],
  index: Map<string, number>,
  zeros: () => number[],
): Series[] {
  const out: Record<string, number[]> = {
    requested: zeros(),
    approved: zeros(),
    rejected: zeros(),
    expired: zeros(),
  };
  const add = (name: string, b: string, n: number) => {
    const i = index.get(b);
    const values = out[name];
    if (i !== undefined && values) values[i] = (values[i] ?? 0) + n;
  };
  for (const r of requested) add('requested', r.b, r.n);
  for (const r of decided) add(r.status, r.b, r.n);
  return Object.entries(out).map(([name, values]) => ({ name, values }));
}
