/**
 * `npm run bench:records` (PostgreSQL via DATABASE_URL):
 * 1. Ingest throughput: the same records sent over HTTP to the ingest
 *    route in 10,000-record NDJSON batches, and inserted raw (multi-row
 *    INSERT … VALUES of the precomputed rows), in the same run. Reports
 *    records/s of each and their ratio (targets ≥ 20,000/s, ≥ 0.3).
 * 2. Search latency over what is stored (seed 1,000,000 first:
 *    `npm run seed:records -- 1000000`, or pass `--seed`), through the
 *    audit browser's own services: a session timeline (with its chain
 *    check; p95 ≤ 50 ms) and a filtered search page with its capped count
 *    (p95 ≤ 200 ms).
 * `-- --json` prints only one JSON object. `--url U --key K` sends the HTTP
 * half to a running app instead of the in-process server.
 */
import './records-quiet';
import 'dotenv/config';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { closeDb, db } from '@/lib/server/db';
import { generateApiKey } from '@/lib/server/hosts/api-key';
import { ApiError } from '@/lib/server/http/api-error';
import { authenticateHost } from '@/lib/server/http/host-auth';
import { bulkRows, runTag, syntheticSession } from '@/lib/server/records/bulk-rows';
import { multiRowInsert } from '@/lib/server/records/columns';
import { receiveRecords } from '@/lib/server/records/receive';
import { seedRecords } from '../scripts/seed-records';
import type { AuditFilters } from '@/lib/server/audit/filters';
import { searchRecords } from '@/lib/server/audit/search';
import { getSessionTimeline } from '@/lib/server/audit/timeline';

const argv = process.argv.slice(2);
const JSON_ONLY = argv.includes('--json');
const opt = (name: string) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
};
const BATCH = 10_000;
const BATCHES = Number(opt('batches') ?? 10);
const SESSION_LENGTH = 50;
const RAW_ROWS_PER_STATEMENT = 2_500;
const SEARCH_TARGET = 1_000_000;
const say = (...s: unknown[]) => {
  if (!JSON_ONLY) console.log(...s);
};

async function freshHost(prisma: PrismaClient, name: string) {
  // Scratch hosts of this benchmark only: their rows go with them (cascade).
  await prisma.host.deleteMany({ where: { name } });
  const host = await prisma.host.create({ data: { name }, select: { id: true } });
  const k = generateApiKey();
  await prisma.apiKey.create({
    data: { hostId: host.id, name: 'bench', prefix: k.prefix, hash: k.hash },
  });
  return { id: host.id, key: k.key };
}

/** The ingest route's work (host auth + receiveRecords) behind a plain node server. */
async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: 'POST',
      headers: req.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    let answer: Response;
    try {
      const host = await authenticateHost(request);
      answer = Response.json(await receiveRecords(request, host));
    } catch (err) {
      answer =
        err instanceof ApiError
          ? err.toResponse()
          : Response.json({ error: { code: 'internal', message: String(err) } }, { status: 500 });
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function ingestBench(prisma: PrismaClient) {
  const tag = runTag();
  const sessions = Array.from({ length: (BATCH * BATCHES) / SESSION_LENGTH }, (_, n) =>
    syntheticSession(`bench-${tag}`, n, SESSION_LENGTH),
  );
  const records = sessions.flatMap((s) => s.records);
  const bodies: string[] = [];
  for (let i = 0; i < records.length; i += BATCH) {
    bodies.push(
      `${records
        .slice(i, i + BATCH)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
  }
  const httpHost = await freshHost(prisma, 'bench-records-http');
  const rawHost = await freshHost(prisma, 'bench-records-raw');
  const external = opt('url');
  const server = external ? null : await startServer();
  const url = `${external ?? server?.url}/api/v1/records`;
  const key = opt('key') ?? httpHost.key;

  let httpMs: number;
  try {
    const httpStart = performance.now();
    for (const body of bodies) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      const answer = (await res.json()) as { accepted?: number };
      if (res.status !== 200 || answer.accepted !== BATCH) {
        throw new Error(`ingest answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      }
    }
    httpMs = performance.now() - httpStart;
  } finally {
    await server?.close();
  }

  // The raw baseline writes the ingest's columns and row shape (columns.ts)
  // but never calls the ingest service: it is what that service is measured
  // against, so it skips exactly the work under test (validation, chain
  // locks, dedupe lookups, one unnest statement per batch).
  const rows = sessions.flatMap((s) => bulkRows(s));
  const rawStart = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    // The ingest's own transaction bound (60 s), not Prisma's default 5 s: a
    // loaded machine must not fail the baseline that the ingest is spared.
    await prisma.$transaction(
      async (tx) => {
        for (let j = 0; j < batch.length; j += RAW_ROWS_PER_STATEMENT) {
          const insert = multiRowInsert(rawHost.id, batch.slice(j, j + RAW_ROWS_PER_STATEMENT));
          await tx.$executeRawUnsafe(insert.sql, ...insert.params);
        }
      },
      { timeout: 60_000, maxWait: 60_000 },
    );
  }
  const rawMs = performance.now() - rawStart;
  await prisma.host.deleteMany({
    where: { name: { in: ['bench-records-http', 'bench-records-raw'] } },
  });
  const http = Math.round(records.length / (httpMs / 1000));
  const raw = Math.round(records.length / (rawMs / 1000));
  return {
    records: records.length,
    batchSize: BATCH,
    httpRecordsPerSecond: http,
    rawRecordsPerSecond: raw,
    ratio: Number((http / raw).toFixed(3)),
  };
}

function percentile(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(2));
}

async function timed(n: number, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < Math.min(10, n); i++) await fn(i); // warm caches and plans
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return { n, p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

const AUDITOR = { id: '00000000-0000-4000-8000-000000000000', roles: ['auditor' as const] };
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** The audit browser's own queries (lib/server/audit): a page of 50 with its capped count. */
const FILTERS: AuditFilters[] = [
  { decision: 'deny', from: new Date(Date.now() - WEEK_MS) },
  { point: 'pre_tool_call', hostErrorsOnly: true },
  { reasonPrefix: 'pii' },
  { agentId: 'agent-3', decision: 'deny' },
];

async function searchBench(prisma: PrismaClient) {
  const [{ n: stored }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "InterceptionRecord"`,
  );
  const sample = await prisma.$queryRawUnsafe<{ hostId: string; sessionId: string }[]>(
    `SELECT "hostId"::text AS "hostId", "sessionId" FROM "SessionChain" TABLESAMPLE SYSTEM (5) LIMIT 200`,
  );
  if (sample.length === 0) throw new Error('no sessions stored: run npm run seed:records first');
  // The session page: timeline ordered by sequence, tickets, gaps and the chain check.
  const sessionLookup = await timed(200, (i) => {
    const s = sample[i % sample.length];
    return getSessionTimeline(AUDITOR, { sessionId: s.sessionId, hostId: s.hostId });
  });
  const filteredSearch = await timed(100, (i) =>
    searchRecords(AUDITOR, FILTERS[i % FILTERS.length], { limit: 50 }),
  );
  // Which filter is slow, for whoever tunes the indexes.
  const byFilter: Record<string, number> = {};
  for (const f of FILTERS) {
    const label = Object.keys(f).join('+');
    byFilter[label] = (await timed(20, () => searchRecords(AUDITOR, f, { limit: 50 }))).p95;
  }
  return { storedRecords: stored, sessionLookup, filteredSearch: { ...filteredSearch, byFilter } };
}

async function main() {
  const prisma = await db();
  if (argv.includes('--seed')) {
    const [{ n }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "InterceptionRecord"`,
    );
    if (n < SEARCH_TARGET) {
      say(`seeding ${SEARCH_TARGET - n} records…`);
      await seedRecords(SEARCH_TARGET - n);
    }
  }
  say('ingest throughput…');
  const ingest = await ingestBench(prisma);
  say('search latency…');
  const search = await searchBench(prisma);
  const result = {
    ingest,
    search,
    targets: {
      httpRecordsPerSecond: 20_000,
      ratio: 0.3,
      sessionLookupP95Ms: 50,
      filteredSearchP95Ms: 200,
      storedRecords: SEARCH_TARGET,
    },
    pass: {
      throughput: ingest.httpRecordsPerSecond >= 20_000,
      ratio: ingest.ratio >= 0.3,
      sessionLookup: search.sessionLookup.p95 <= 50,
      filteredSearch: search.filteredSearch.p95 <= 200,
      atScale: search.storedRecords >= SEARCH_TARGET,
    },
  };
  if (JSON_ONLY) {
    console.log(JSON.stringify(result));
    return;
  }
  console.table({
    'HTTP ingest (records/s)': { value: ingest.httpRecordsPerSecond, target: '≥ 20000' },
    'raw INSERT (records/s)': { value: ingest.rawRecordsPerSecond, target: '' },
    'ratio HTTP / raw': { value: ingest.ratio, target: '≥ 0.3' },
    'stored records': { value: search.storedRecords, target: '1000000' },
    'session lookup p95 (ms)': { value: search.sessionLookup.p95, target: '≤ 50' },
    'filtered search p95 (ms)': { value: search.filteredSearch.p95, target: '≤ 200' },
  });
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(closeDb);
