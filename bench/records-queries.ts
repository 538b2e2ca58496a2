/**
 * The audit browser's queries over what is stored (issue 16 items 2 and 3),
 * through its own services (lib/server/audit), for `npm run bench:records`:
 * - session lookup: the timeline's first page of sampled 50-record sessions
 *   (rows, tickets, host failures nearby, the page's log check and the
 *   session-wide structure check), p50/p95, target p95 ≤ 50 ms;
 * - every filter the search form offers, alone and combined: a page of 50
 *   plus the capped count, p50/p95 each, target p95 ≤ 200 ms;
 * - the capped count alone over all of them as the search page runs it
 *   (exact within COUNT_BUDGET_MS, else the planner's estimate), p95;
 * - a huge session (the largest stored, ≥ 100,000 records): its first
 *   timeline page through the service, p50/p95 (target ≤ 300 ms), and the
 *   page's HTML bytes (target ≤ 200 KB): over HTTP when `--audit-url U
 *   --audit-cookie C` name a running app and a signed-in auditor's cookie,
 *   else the session page's own view (timeline-view.tsx) rendered to HTML in
 *   a child process (react-dom/server cannot run under react-server) — which
 *   leaves out the layout and Next's RSC payload.
 * Seed first: `npm run seed:records -- 1000000` and
 * `npm run seed:records -- 100000 --session-length 100000 --host seed-huge`
 * (or pass `--seed` to bench:records).
 */
import 'dotenv/config';
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { AuditFilters } from '@/lib/server/audit/filters';
import { closeDb, db } from '@/lib/server/db';
import { COUNT_BUDGET_MS, COUNT_CAP, countRows, searchRecords } from '@/lib/server/audit/search';
import { getSessionTimeline } from '@/lib/server/audit/timeline';
import {
  bulkRows,
  chainHeadsInsert,
  runTag,
  syntheticSession,
} from '@/lib/server/records/bulk-rows';
import { unnestInsert } from '@/lib/server/records/columns';

export type Stat = { n: number; p50: number; p95: number };

export type HugeSession = {
  records: number;
  /** getSessionTimeline's first page, warm. */
  firstPage: Stat;
  /** HTML of the first page, and how it was weighed. */
  html: { bytes: number; ms: number | null; via: 'http' | 'rendered view' };
};

export type AuditQueryFigures = {
  storedRecords: number;
  loadAverage: number[];
  sessionLookup: Stat;
  /** A page of 50 with its capped count, per filter combination. */
  filters: Record<string, Stat>;
  /** All filter combinations pooled. */
  filteredSearch: Stat;
  cappedCount: Stat;
  hugeSession: HugeSession | null;
};

export const AUDIT_QUERY_TARGETS = {
  sessionLookupP95Ms: 50,
  filteredSearchP95Ms: 200,
  hugeSessionFirstPageMs: 300,
  hugeSessionHtmlBytes: 200_000,
};

const AUDITOR = { id: '00000000-0000-4000-8000-000000000000', roles: ['auditor' as const] };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The smallest session bench:records calls huge. */
export const HUGE_SESSION = 100_000;

export function percentile(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0).toFixed(2));
}

/** Milliseconds of `n` calls, after a few unmeasured ones that warm caches and plans. */
async function samples(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(5, n); i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return ms;
}

const stat = (ms: number[]): Stat => ({
  n: ms.length,
  p50: percentile(ms, 50),
  p95: percentile(ms, 95),
});

export async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<Stat> {
  return stat(await samples(n, fn));
}

type Sample = { hostId: string; sessionId: string };

/**
 * Every filter of the search form alone (values the seed holds, rare and
 * common), then combinations: selective with unselective, and ones whose
 * parts are each common but rare together.
 */
export function filterCases(
  s: Sample,
  agentId: string,
  now = Date.now(),
): Record<string, AuditFilters> {
  const since = (ms: number) => new Date(now - ms);
  return {
    session: { sessionId: s.sessionId },
    agent: { agentId },
    host: { hostId: s.hostId },
    'point (pre_tool_call)': { point: 'pre_tool_call' },
    'decision (deny)': { decision: 'deny' },
    'reason prefix (pii)': { reasonPrefix: 'pii' },
    'reason prefix (host_error:)': { reasonPrefix: 'host_error:' },
    'resolved-by rejection': { resolvedBy: 'rejection' },
    'resolved-by approval': { resolvedBy: 'approval' },
    'resolved-by none': { resolvedBy: 'none' },
    'fold-truncated true': { foldTruncated: true },
    'fold-truncated false': { foldTruncated: false },
    'host errors only': { hostErrorsOnly: true },
    'mode evaluate_only': { mode: 'evaluate_only' },
    'mode enforce': { mode: 'enforce' },
    'from (last hour)': { from: since(HOUR) },
    'from–to (6 h, 10 days ago)': { from: since(10 * DAY), to: since(10 * DAY - 6 * HOUR) },
    'decision + from (7 days)': { decision: 'deny', from: since(7 * DAY) },
    'agent + decision': { agentId, decision: 'deny' },
    'point + host errors only': { point: 'pre_tool_call', hostErrorsOnly: true },
    'host + point + decision': { hostId: s.hostId, point: 'pre_tool_call', decision: 'deny' },
    'reason prefix + from–to': {
      reasonPrefix: 'pii',
      from: since(20 * DAY),
      to: since(5 * DAY),
    },
    'resolved-by rejection + from (7 days)': { resolvedBy: 'rejection', from: since(7 * DAY) },
    'fold-truncated true + agent': { foldTruncated: true, agentId },
    'mode evaluate_only + decision': { mode: 'evaluate_only', decision: 'deny' },
    'session + decision': { sessionId: s.sessionId, decision: 'allow' },
    'resolved-by none + fold false + mode enforce': {
      resolvedBy: 'none',
      foldTruncated: false,
      mode: 'enforce',
    },
    'point (agent_shutdown) + decision deny (none match)': {
      point: 'agent_shutdown',
      decision: 'deny',
    },
    'host + agent + point + decision + from': {
      hostId: s.hostId,
      agentId,
      point: 'pre_tool_call',
      decision: 'deny',
      from: since(7 * DAY),
    },
  };
}

async function sampleSessions(prisma: PrismaClient): Promise<Sample[]> {
  return prisma.$queryRawUnsafe<Sample[]>(
    `SELECT "hostId"::text AS "hostId", "sessionId" FROM "SessionChain" TABLESAMPLE SYSTEM (5)
     WHERE "recordCount" BETWEEN 2 AND 1000 LIMIT 200`,
  );
}

async function largestSession(
  prisma: PrismaClient,
): Promise<(Sample & { records: number }) | null> {
  const [row] = await prisma.$queryRawUnsafe<(Sample & { records: number })[]>(
    `SELECT "hostId"::text AS "hostId", "sessionId", "recordCount" AS records FROM "SessionChain"
     WHERE "recordCount" >= $1 ORDER BY "recordCount" DESC LIMIT 1`,
    HUGE_SESSION,
  );
  return row ?? null;
}

/**
 * One session of HUGE_SESSION records under the host `seed-huge`, chained
 * whole and written 5,000 rows per statement (seed-records.ts writes a
 * session in one statement, too large a message at this size).
 */
export async function seedHugeSession(prisma: PrismaClient): Promise<void> {
  const host = await prisma.host.upsert({
    where: { name: 'seed-huge' },
    create: { name: 'seed-huge', description: 'One huge synthetic session (bench:records).' },
    update: {},
    select: { id: true },
  });
  const rows = bulkRows(syntheticSession(runTag(), 0, HUGE_SESSION));
  const heads = chainHeadsInsert(host.id, [rows]);
  await prisma.$transaction(
    async (tx) => {
      for (let i = 0; i < rows.length; i += 5_000) {
        const insert = unnestInsert(host.id, rows.slice(i, i + 5_000));
        await tx.$executeRawUnsafe(insert.sql, ...insert.params);
      }
      await tx.$executeRawUnsafe(heads.sql, ...heads.params);
    },
    { timeout: 600_000, maxWait: 600_000 },
  );
  await prisma.$executeRawUnsafe('ANALYZE "InterceptionRecord"');
}

/** The session view rendered to HTML by bench/render-timeline.tsx, outside react-server. */
function renderedBytes(timeline: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'render-timeline.tsx')],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const bytes = Number(out.trim());
      if (code === 0 && Number.isFinite(bytes)) resolve(bytes);
      else reject(new Error(`render-timeline exited ${code}: ${out.slice(0, 200)}`));
    });
    child.stdin.end(JSON.stringify(timeline));
  });
}

async function overHttp(url: string, cookie: string, s: Sample) {
  const page = `${url}/audit/sessions/${encodeURIComponent(s.sessionId)}?host=${s.hostId}`;
  const get = async () => {
    const res = await fetch(page, { headers: { cookie }, redirect: 'manual' });
    if (res.status !== 200) throw new Error(`GET ${page}: ${res.status}`);
    return Buffer.byteLength(await res.text());
  };
  let bytes = await get();
  const stat = await timed(10, async () => {
    bytes = await get();
  });
  return { bytes, ms: stat.p50 };
}

async function hugeSession(
  prisma: PrismaClient,
  http: { url?: string; cookie?: string },
): Promise<HugeSession | null> {
  const s = await largestSession(prisma);
  if (!s) return null;
  const first = () => getSessionTimeline(AUDITOR, { sessionId: s.sessionId, hostId: s.hostId });
  const firstPage = await timed(20, first);
  const html =
    http.url && http.cookie
      ? { ...(await overHttp(http.url, http.cookie, s)), via: 'http' as const }
      : { bytes: await renderedBytes(await first()), ms: null, via: 'rendered view' as const };
  return { records: s.records, firstPage, html };
}

export async function measureAuditQueries(
  prisma: PrismaClient,
  opts: { url?: string; cookie?: string; say?: (...s: unknown[]) => void } = {},
): Promise<AuditQueryFigures> {
  const say = opts.say ?? (() => {});
  const [{ n: storedRecords }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "InterceptionRecord"`,
  );
  const sample = await sampleSessions(prisma);
  if (sample.length === 0) throw new Error('no sessions stored: run npm run seed:records first');
  say('  session lookup…');
  const sessionLookup = await timed(200, (i) => {
    const s = sample[i % sample.length] as Sample;
    return getSessionTimeline(AUDITOR, { sessionId: s.sessionId, hostId: s.hostId });
  });
  const [{ agentId }] = await prisma.$queryRawUnsafe<{ agentId: string }[]>(
    `SELECT "agentId" FROM "InterceptionRecord" WHERE "hostId" = $1::uuid AND "sessionId" = $2 LIMIT 1`,
    sample[0]?.hostId,
    sample[0]?.sessionId,
  );
  const cases = filterCases(sample[0] as Sample, agentId);
  say(`  ${Object.keys(cases).length} filter combinations…`);
  const filters: Record<string, Stat> = {};
  const pooled: number[] = [];
  const counts: number[] = [];
  for (const [label, f] of Object.entries(cases)) {
    const ms = await samples(20, () => searchRecords(AUDITOR, f, { limit: 50 }));
    filters[label] = stat(ms);
    pooled.push(...ms);
    counts.push(
      ...(await samples(5, () => countRows(f, COUNT_CAP, { budgetMs: COUNT_BUDGET_MS }))),
    );
  }
  say('  huge session…');
  const huge = await hugeSession(prisma, opts);
  return {
    storedRecords,
    loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
    sessionLookup,
    filters,
    filteredSearch: stat(pooled),
    cappedCount: stat(counts),
    hugeSession: huge,
  };
}

/**
 * The search half alone: `npx tsx --conditions=react-server
 * bench/records-queries.ts [--json] [--audit-url U --audit-cookie C]`.
 */
async function main() {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const json = argv.includes('--json');
  try {
    const figures = await measureAuditQueries(await db(), {
      url: opt('audit-url'),
      cookie: opt('audit-cookie'),
      say: json ? undefined : console.log,
    });
    if (json) console.log(JSON.stringify({ search: figures, targets: AUDIT_QUERY_TARGETS }));
    else {
      const { filters, ...rest } = figures;
      console.log(JSON.stringify(rest, null, 2));
      console.table(filters);
    }
  } finally {
    await closeDb();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
