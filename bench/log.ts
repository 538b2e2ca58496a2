// `npm run bench:log [-- --json] [-- --batches N --rounds R --leaves L --proofs P]`
//
// Issue 13, Performance. On a scratch PostgreSQL database (bench/support.ts):
// 1. Ingest with the transparency log on vs off, same run, same data sizes:
//    the real ingest path (host auth + receiveRecords behind a plain node
//    server, 10,000-record NDJSON batches, as bench/records.ts drives it),
//    R rounds (default 4), each an "off" half (no appender) and an "on" half
//    (the log appender running in a separate process, what the worker runs:
//    runtime.ts, every LOG_APPEND_INTERVAL_MS), the order alternating from
//    round to round. Whatever backlog is left is appended, untimed, before
//    each half starts, so an "on" half carries only its own records.
//    Reports records/s both ways, each round's on/off ratio and their
//    median (judged against the target ≥ 0.8), the load average (the
//    machine is shared), and how long the appender took to catch up after
//    an "on" half.
// 2. Inclusion proof latency at L leaves (default 1,000,000): the log is
//    built by inserting LogLeaf/LogNode rows directly, with generated leaf
//    hashes (no records behind them), then random leaves are proven through
//    the API's service function (`getInclusion`, what the record page and
//    GET /api/v1/log/proof/inclusion call) and `inclusionProof` alone.
//    Target p95 ≤ 20 ms.
import './records-quiet';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchLogger, pct, round, withScratchDatabase } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
    batches: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '4' },
    leaves: { type: 'string', default: '1000000' },
    proofs: { type: 'string', default: '1000' },
    'skip-proofs': { type: 'boolean', default: false },
    'skip-ingest': { type: 'boolean', default: false },
  },
});
const log = benchLogger(values.json);
const BATCH = 10_000;
const SESSION_LENGTH = 50;

/** The appender process: the worker's transparency loop, until SIGTERM. */
async function child(): Promise<void> {
  const { startTransparencyLoop } = await import('../lib/server/transparency/runtime');
  const { closeDb, db } = await import('../lib/server/db');
  await db();
  const loop = startTransparencyLoop();
  const keepAlive = setInterval(() => {}, 60_000);
  process.on('SIGTERM', async () => {
    clearInterval(keepAlive);
    await loop.stop();
    await closeDb();
    process.exit(0);
  });
  process.stdout.write('ready\n');
}

function startAppender(): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=react-server', import.meta.filename, '--child'],
    { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`appender process exited (${code})`)));
    proc.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(proc);
    });
  });
}

async function stopAppender(proc: ChildProcess): Promise<void> {
  proc.removeAllListeners('exit');
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/** The ingest route's work (host auth + receiveRecords) behind a plain node server. */
async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const { ApiError } = await import('../lib/server/http/api-error');
  const { authenticateHost } = await import('../lib/server/http/host-auth');
  const { receiveRecords } = await import('../lib/server/records/receive');
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
    url: `http://127.0.0.1:${port}/api/v1/records`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function ingestBench() {
  const { db } = await import('../lib/server/db');
  const { generateApiKey } = await import('../lib/server/hosts/api-key');
  const { syntheticSession } = await import('../lib/server/records/bulk-rows');
  const { appendAll } = await import('../lib/server/transparency/append');
  const prisma = await db();
  const host = await prisma.host.create({ data: { name: 'bench-log' }, select: { id: true } });
  const k = generateApiKey();
  await prisma.apiKey.create({
    data: { hostId: host.id, name: 'bench', prefix: k.prefix, hash: k.hash },
  });
  const batches = Number(values.batches);
  let part = 0;
  /** Fresh sessions for each round, the same sizes every round. */
  const bodies = () => {
    const sessions = Array.from({ length: (BATCH * batches) / SESSION_LENGTH }, (_, n) =>
      syntheticSession(`log-${part}`, n, SESSION_LENGTH),
    );
    part++;
    const records = sessions.flatMap((s) => s.records);
    const out: string[] = [];
    for (let i = 0; i < records.length; i += BATCH) {
      out.push(
        `${records
          .slice(i, i + BATCH)
          .map((r) => JSON.stringify(r))
          .join('\n')}\n`,
      );
    }
    return out;
  };
  const server = await startServer();
  const send = async (body: string) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    const answer = (await res.json()) as { accepted?: number };
    if (res.status !== 200 || answer.accepted !== BATCH) {
      throw new Error(`ingest answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  };
  const timedRound = async (list: string[]) => {
    const start = performance.now();
    for (const body of list) await send(body);
    return performance.now() - start;
  };
  const offMs: number[] = [];
  const onMs: number[] = [];
  const catchUpMs: number[] = [];
  const loads: number[][] = [];
  const offRound = async () => {
    await appendAll(prisma); // the previous round's backlog, untimed
    offMs.push(await timedRound(bodies()));
  };
  const onRound = async () => {
    await appendAll(prisma); // the previous round's backlog, untimed
    const list = bodies();
    const appender = await startAppender();
    try {
      onMs.push(await timedRound(list));
      const done = performance.now();
      // How long the appender needs to catch up after the last batch.
      while ((await pendingRecords(prisma)) > 0) await new Promise((r) => setTimeout(r, 100));
      catchUpMs.push(performance.now() - done);
    } finally {
      await stopAppender(appender);
    }
  };
  try {
    await timedRound(bodies().slice(0, 1)); // warm plans and caches
    await appendAll(prisma);
    for (let r = 0; r < Number(values.rounds); r++) {
      loads.push(loadavg());
      // Alternate which half goes first, so a trend in the machine's load
      // (other processes, autovacuum, a growing table) does not favour one.
      const order = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const half of order) {
        log(`round ${r + 1}: log ${half}…`);
        await (half === 'off' ? offRound() : onRound());
      }
    }
    loads.push(loadavg());
  } finally {
    await server.close();
  }
  const [{ refused }] = await prisma.$queryRawUnsafe<{ refused: number }[]>(
    `SELECT count(*)::int AS refused FROM "LogRefusal"`,
  );
  const records = BATCH * batches;
  const rate = (ms: number[]) =>
    Math.round((records * ms.length) / (ms.reduce((a, b) => a + b) / 1000));
  const off = rate(offMs);
  const on = rate(onMs);
  const perRound = offMs.map((ms, i) => ({
    off: Math.round(records / (ms / 1000)),
    on: Math.round(records / (onMs[i] / 1000)),
    ratio: Number((ms / onMs[i]).toFixed(3)),
    first: i % 2 === 0 ? 'off' : 'on',
    loadAverage1m: round(loads[i][0]),
  }));
  return {
    recordsPerRound: records,
    rounds: onMs.length,
    batchSize: BATCH,
    offRecordsPerSecond: off,
    onRecordsPerSecond: on,
    /** The median of the rounds' on/off ratios: what the target is judged on. */
    ratio: median(perRound.map((p) => p.ratio)),
    pooledRatio: Number((on / off).toFixed(3)),
    perRound,
    appenderCatchUpMs: catchUpMs.map(Math.round),
    refusals: refused,
    loadAverage: {
      cores: cpus().length,
      start: loads[0].map(round),
      end: loads[loads.length - 1].map(round),
    },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return Number((s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2).toFixed(3));
}

/** Records not in the log yet (what the appender still has to do). */
async function pendingRecords(prisma: {
  $queryRawUnsafe: <T>(q: string) => Promise<T>;
}): Promise<number> {
  const [{ n }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "InterceptionRecord" r
     WHERE r.id > (SELECT COALESCE(max("lowId"), 0) FROM "LogRecordCursor")
       AND NOT EXISTS (SELECT 1 FROM "LogLeaf" l WHERE l.kind = 'record' AND l."refId" = r.id::text)`,
  );
  return n;
}

/** A log of `leaves` generated leaf hashes, written straight into LogLeaf/LogNode. */
async function buildLog(leaves: number) {
  const { appendLeaves, EMPTY_FRONTIER, leafHash, toHex } = await import('../lib/proof');
  const { db } = await import('../lib/server/db');
  const prisma = await db();
  // The ingest half's records and leaves go: this log holds generated leaves only.
  await prisma.$executeRawUnsafe(
    `TRUNCATE "InterceptionRecord", "SessionChain", "LogLeaf", "LogNode", "TreeHead", "LogRefusal"`,
  );
  const CHUNK = 50_000;
  let frontier = EMPTY_FRONTIER;
  const start = performance.now();
  for (let from = 0; from < leaves; from += CHUNK) {
    const n = Math.min(CHUNK, leaves - from);
    const hashes = Array.from({ length: n }, () => leafHash(randomBytes(64)));
    const { created, frontier: next } = appendLeaves(frontier, hashes);
    frontier = next;
    await prisma.$executeRawUnsafe(
      `INSERT INTO "LogLeaf" ("index", kind, "refId")
       SELECT i, 'record', i::text FROM generate_series($1::bigint, $2::bigint) AS i`,
      from,
      from + n - 1,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO "LogNode" (level, "index", hash)
       SELECT l, i, decode(h, 'hex') FROM unnest($1::int[], $2::bigint[], $3::text[]) AS u(l, i, h)`,
      created.map((s) => s.level),
      created.map((s) => s.index),
      created.map((s) => toHex(s.hash)),
    );
  }
  await prisma.$executeRawUnsafe(`ANALYZE "LogLeaf"`);
  await prisma.$executeRawUnsafe(`ANALYZE "LogNode"`);
  return Math.round(performance.now() - start);
}

async function timed(n: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < Math.min(20, n); i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { n, p50: round(pct(ms, 50)), p95: round(pct(ms, 95)), max: round(ms[ms.length - 1]) };
}

async function proofBench() {
  const leaves = Number(values.leaves);
  const proofs = Number(values.proofs);
  log(`building a log of ${leaves} generated leaves…`);
  const buildMs = await buildLog(leaves);
  const { db } = await import('../lib/server/db');
  const { getInclusion } = await import('../lib/server/transparency/api');
  const { inclusionProof } = await import('../lib/server/transparency/proofs');
  const { issueTreeHead } = await import('../lib/server/transparency/tree-head');
  const prisma = await db();
  const head = await issueTreeHead(prisma);
  if (head?.size !== leaves) throw new Error(`tree head of size ${head?.size}, not ${leaves}`);
  const random = () => Math.floor(Math.random() * leaves);
  log('inclusion proofs…');
  const service = await timed(proofs, () => getInclusion({ kind: 'auditor' }, { index: random() }));
  const storage = await timed(proofs, () => inclusionProof(prisma, random(), leaves));
  return {
    leaves,
    generatedLeaves: true,
    buildMs,
    getInclusion: service,
    inclusionProof: storage,
  };
}

async function main() {
  return withScratchDatabase('ck_bench_log', async (url) => {
    process.env.DATABASE_URL = url;
    process.env.AUTH_SECRET ??= randomBytes(32).toString('hex');
    process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString('hex');
    process.env.LOG_LEVEL = values.json ? 'silent' : 'warn';
    // Nothing here queues jobs; a prefix of its own keeps it that way for sure.
    process.env.QUEUE_PREFIX = `ckbench-log-${randomBytes(4).toString('hex')}`;
    const { migrateTarget } = await import('../lib/server/db/migrate-target');
    await migrateTarget({ kind: 'postgres', url });
    const { closeDb } = await import('../lib/server/db');
    try {
      const ingest = values['skip-ingest'] ? null : await ingestBench();
      const proofs = values['skip-proofs'] ? null : await proofBench();
      const result = {
        ingest,
        proofs,
        note: 'proofs: LogLeaf/LogNode rows inserted directly with generated leaf hashes',
        targets: { ratio: 0.8, proofP95Ms: 20 },
        pass: {
          ratio: ingest ? ingest.ratio >= 0.8 : null,
          proofP95: proofs ? proofs.getInclusion.p95 <= 20 : null,
        },
      };
      if (values.json) console.log(JSON.stringify(result));
      else console.log(JSON.stringify(result, null, 2));
    } finally {
      await closeDb();
    }
  });
}

if (values.child) {
  child().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exitCode = 1;
  });
}
