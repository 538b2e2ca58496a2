/**
 * `npm run bench:records` (PostgreSQL via DATABASE_URL):
 * 1. Ingest throughput: the same records sent in 10,000-record NDJSON
 *    batches to the real route (`POST /api/v1/records` of the built app,
 *    `next start` on --port, default 3471, from NEXT_DIST_DIR, default
 *    .next-bench-records, built first when missing or stale), and COPYed
 *    into the same table (the precomputed rows, chained and sealed, one
 *    transaction per batch), batch for batch in turn in the same run.
 *    Reports records/s of each, their ratio (target ≥ 0.8) and the load
 *    average. Needs APP_ENCRYPTION_KEY (shared with the app it starts);
 *    `--no-build` starts the build in NEXT_DIST_DIR as it is.
 * 2. Search latency over what is stored (seed 1,000,000 first:
 *    `npm run seed:records -- 1000000`, or pass `--seed`), through the
 *    audit browser's own services: a session timeline (with its chain
 *    check; p95 ≤ 50 ms) and a filtered search page with its capped count
 *    (p95 ≤ 200 ms).
 * `-- --json` prints only one JSON object. `--url U --key K` sends the HTTP
 * half to a running app instead of starting one.
 */
import './records-quiet';
import 'dotenv/config';
import { loadavg } from 'node:os';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { closeDb, db } from '@/lib/server/db';
import { sqlTransaction } from '@/lib/server/db/sql-transaction';
import { generateApiKey } from '@/lib/server/hosts/api-key';
import { bulkRows, runTag, syntheticSession } from '@/lib/server/records/bulk-rows';
import { COPY_RECORDS_SQL, copyChunks } from '@/lib/server/records/columns';
import { appQueueTarget } from '@/lib/server/queue/producer';
import { obliterateQueues } from '@/lib/server/queue/queues';
import { INGEST_TX_TIMEOUT_MS } from '@/lib/server/records/ingest';
import { ensureBuild } from './cluster/build';
import { appInstance, cleanupAll, onCleanup, runDir } from './cluster/infra';
import { seedRecords } from '../scripts/seed-records';
import {
  AUDIT_QUERY_TARGETS,
  HUGE_SESSION,
  measureAuditQueries,
  seedHugeSession,
} from './records-queries';

const argv = process.argv.slice(2);
const JSON_ONLY = argv.includes('--json');
const opt = (name: string) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
};
const BATCH = 10_000;
const BATCHES = Number(opt('batches') ?? 10);
const SESSION_LENGTH = 50;
const PORT = Number(opt('port') ?? 3471);
const DIST_DIR = process.env.NEXT_DIST_DIR || '.next-bench-records';
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

/**
 * The built app (`next build` into DIST_DIR when missing or stale) on PORT,
 * with this process's env. No worker in it (the transparency appender would
 * share the cores), and whatever it queues goes under a prefix of the run's
 * own, removed afterwards.
 */
async function startApp(tag: string): Promise<string> {
  // --no-build: the build in DIST_DIR as it is, even if older than the sources.
  if (!argv.includes('--no-build')) ensureBuild(DIST_DIR, say, JSON_ONLY);
  const prefix = `ckbench-records-${tag}`;
  const env = { LOG_LEVEL: 'warn', QUEUE_PREFIX: prefix };
  const app = appInstance('records-app', PORT, DIST_DIR, env, runDir());
  // Registered first, so it runs after the app is stopped (cleanups run last-in first-out).
  onCleanup(() => obliterateQueues({ ...appQueueTarget(), prefix }));
  app.start();
  const url = `http://127.0.0.1:${PORT}`;
  const up = async () => (await fetch(`${url}/api/ready`).catch(() => null))?.ok === true;
  await app.waitFor(up, 180_000);
  return url;
}

const round2 = (x: number) => Number(x.toFixed(2));

async function ingestBench(prisma: PrismaClient) {
  const tag = runTag();
  const sessions = Array.from({ length: (BATCH * BATCHES) / SESSION_LENGTH }, (_, n) =>
    syntheticSession(`bench-${tag}`, n, SESSION_LENGTH),
  );
  const records = sessions.flatMap((s) => s.records);
  const ndjson = (rs: unknown[]) => `${rs.map((r) => JSON.stringify(r)).join('\n')}\n`;
  const bodies: string[] = [];
  for (let i = 0; i < records.length; i += BATCH) bodies.push(ndjson(records.slice(i, i + BATCH)));
  const httpHost = await freshHost(prisma, 'bench-records-http');
  const copyHost = await freshHost(prisma, 'bench-records-copy');
  // The COPY side stores the very rows ingest would (columns.ts: chained,
  // leaf-hashed, sealed), built before the clock starts: it is what the
  // route is measured against, so it skips exactly the work under test
  // (parse, validation, chain locks, dedupe, hashing, sealing).
  const rows = sessions.flatMap((s) => bulkRows(s));
  const copyData: string[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    copyData.push([...copyChunks(copyHost.id, rows.slice(i, i + BATCH))]);
  }
  const copy = (chunks: string[]) =>
    sqlTransaction((tx) => tx.copyFrom(COPY_RECORDS_SQL, chunks), {
      timeoutMs: INGEST_TX_TIMEOUT_MS,
    });
  const external = opt('url');
  const base = external ?? (await startApp(tag));
  const url = `${base}/api/v1/records`;
  const key = opt('key') ?? httpHost.key;
  const post = async (body: string, expected: number) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    const answer = (await res.json()) as { accepted?: number };
    if (res.status !== 200 || answer.accepted !== expected) {
      throw new Error(`ingest answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  };

  const loadBefore = loadavg().map(round2);
  let httpMs = 0;
  let copyMs = 0;
  try {
    // Warm both paths (route compiled and loaded, connections open) on a session of its own.
    const warm = syntheticSession(`bench-${tag}-warm`, 0, 1_000);
    await post(ndjson(warm.records), warm.records.length);
    await copy([...copyChunks(copyHost.id, bulkRows(warm))]);
    // Batch for batch in turn, so that a change of load falls on both alike.
    for (let b = 0; b < bodies.length; b++) {
      let t = performance.now();
      await post(bodies[b], BATCH);
      httpMs += performance.now() - t;
      t = performance.now();
      const stored = await copy(copyData[b]);
      copyMs += performance.now() - t;
      if (stored !== BATCH) throw new Error(`COPY stored ${stored} of ${BATCH} rows`);
    }
  } finally {
    await cleanupAll();
  }
  const loadAfter = loadavg().map(round2);
  await prisma.host.deleteMany({
    where: { name: { in: ['bench-records-http', 'bench-records-copy'] } },
  });
  const http = Math.round(records.length / (httpMs / 1000));
  const copied = Math.round(records.length / (copyMs / 1000));
  return {
    records: records.length,
    batchSize: BATCH,
    http: external ? external : `next start (${DIST_DIR})`,
    httpRecordsPerSecond: http,
    copyRecordsPerSecond: copied,
    ratio: Number((http / copied).toFixed(3)),
    loadAverage: { before: loadBefore, after: loadAfter },
  };
}

/**
 * The audit browser's queries at scale (bench/records-queries.ts): session
 * lookup, every UI filter alone and combined, the capped count, the huge
 * session's first page; `--audit-url U --audit-cookie C` weigh its HTML
 * over HTTP.
 */
function searchBench(prisma: PrismaClient) {
  return measureAuditQueries(prisma, {
    url: opt('audit-url'),
    cookie: opt('audit-cookie'),
    say,
  });
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
    const [{ huge }] = await prisma.$queryRawUnsafe<{ huge: number }[]>(
      `SELECT count(*)::int AS huge FROM "SessionChain" WHERE "recordCount" >= $1`,
      HUGE_SESSION,
    );
    if (huge === 0) {
      say(`seeding one ${HUGE_SESSION}-record session…`);
      await seedHugeSession(prisma);
    }
  }
  say('ingest throughput…');
  const ingest = await ingestBench(prisma);
  say('ingest:', ingest);
  say('search latency…');
  const search = await searchBench(prisma);
  const result = {
    ingest,
    search,
    targets: {
      ratio: 0.8,
      ...AUDIT_QUERY_TARGETS,
      storedRecords: SEARCH_TARGET,
    },
    pass: {
      ratio: ingest.ratio >= 0.8,
      sessionLookup: search.sessionLookup.p95 <= 50,
      filteredSearch: search.filteredSearch.p95 <= 200,
      cappedCount: search.cappedCount.p95 <= 200,
      hugeSessionFirstPage:
        (search.hugeSession?.firstPage.p95 ?? Infinity) <=
        AUDIT_QUERY_TARGETS.hugeSessionFirstPageMs,
      hugeSessionHtml:
        (search.hugeSession?.html.bytes ?? Infinity) <= AUDIT_QUERY_TARGETS.hugeSessionHtmlBytes,
      atScale: search.storedRecords >= SEARCH_TARGET,
    },
  };
  if (JSON_ONLY) {
    console.log(JSON.stringify(result));
    return;
  }
  console.table({
    'HTTP ingest (records/s)': { value: ingest.httpRecordsPerSecond, target: '' },
    'COPY (records/s)': { value: ingest.copyRecordsPerSecond, target: '' },
    'ratio HTTP / COPY': { value: ingest.ratio, target: '≥ 0.8' },
    'load average (ingest)': { value: ingest.loadAverage.after.join(' '), target: '' },
    'stored records': { value: search.storedRecords, target: '1000000' },
    'session lookup p95 (ms)': { value: search.sessionLookup.p95, target: '≤ 50' },
    'filtered search p95 (ms)': { value: search.filteredSearch.p95, target: '≤ 200' },
    'capped count p95 (ms)': { value: search.cappedCount.p95, target: '≤ 200' },
    'huge session first page p95 (ms)': {
      value: search.hugeSession?.firstPage.p95 ?? 'no huge session',
      target: '≤ 300',
    },
    'huge session HTML (bytes)': {
      value: search.hugeSession
        ? `${search.hugeSession.html.bytes} (${search.hugeSession.html.via})`
        : '—',
      target: '≤ 200000',
    },
    'load average (search)': { value: search.loadAverage.join(' '), target: '' },
  });
  console.table(search.filters);
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(closeDb);
