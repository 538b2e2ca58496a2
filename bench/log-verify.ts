// `npx tsx --conditions=react-server bench/log-verify.ts [--json] [--records N]`
//
// Issue 13 item 4: the background log verifier (lib/server/transparency/
// verifier.ts) over a log of N real records (ingested through the ingest
// service, appended by the appender, one signed tree head per 10,000
// leaves), on a scratch PostgreSQL database (bench/support.ts). Reports
// leaves verified per second and the process's peak heap during the run
// (sampled every 50 ms): memory must not grow with N (chunked walk, O(log n)
// frontier, capped findings).
import './records-quiet';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { benchLogger, withScratchDatabase } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    records: { type: 'string', default: '100000' },
    /** Print the plan of one chunk query (the last chunk) instead of timing the run. */
    explain: { type: 'boolean', default: false },
  },
});
const log = benchLogger(values.json);
const SESSION_LENGTH = 50;
const HEAD_EVERY = 10_000;

async function seed(records: number) {
  const { db } = await import('../lib/server/db');
  const { ingestRecords } = await import('../lib/server/records/ingest');
  const { syntheticSession } = await import('../lib/server/records/bulk-rows');
  const { appendAll } = await import('../lib/server/transparency/append');
  const { issueTreeHead } = await import('../lib/server/transparency/tree-head');
  const prisma = await db();
  const host = await prisma.host.create({ data: { name: 'bench-verify' }, select: { id: true } });
  const start = performance.now();
  for (let n = 0; n * SESSION_LENGTH < records; n++) {
    const s = syntheticSession('verify', n, SESSION_LENGTH);
    await ingestRecords(host.id, s.records, { agentId: s.agentId });
    if (((n + 1) * SESSION_LENGTH) % HEAD_EVERY === 0) {
      await appendAll(prisma);
      await issueTreeHead(prisma);
    }
  }
  await appendAll(prisma);
  await issueTreeHead(prisma);
  await prisma.$executeRawUnsafe('ANALYZE');
  return Math.round(performance.now() - start);
}

async function main() {
  return withScratchDatabase('ck_bench_verify', async (url) => {
    process.env.DATABASE_URL = url;
    process.env.AUTH_SECRET ??= randomBytes(32).toString('hex');
    process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString('hex');
    process.env.LOG_LEVEL = 'silent';
    process.env.TREE_HEAD_FILE = `/tmp/ck-bench-verify-${Date.now()}.jsonl`;
    process.env.QUEUE_PREFIX = `ckbench-verify-${randomBytes(4).toString('hex')}`;
    const { migrateTarget } = await import('../lib/server/db/migrate-target');
    await migrateTarget({ kind: 'postgres', url });
    const { closeDb, db } = await import('../lib/server/db');
    try {
      const records = Number(values.records);
      log(`seeding ${records} records…`);
      const seedMs = await seed(records);
      const { verifyLog } = await import('../lib/server/transparency/verifier');
      if (values.explain) {
        const { chunkPlan } = await import('../lib/server/transparency/verify-leaves');
        console.log(await chunkPlan(await db(), Math.max(0, records - 2000), records));
        return;
      }
      global.gc?.();
      const baseHeap = process.memoryUsage().heapUsed;
      let peakHeap = baseHeap;
      const sampler = setInterval(() => {
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      }, 50);
      log('verifying…');
      const t = performance.now();
      const result = await verifyLog(await db());
      const ms = performance.now() - t;
      clearInterval(sampler);
      const out = {
        records,
        seedMs,
        verify: {
          ok: result.ok,
          leaves: result.checkedLeaves,
          ms: Math.round(ms),
          leavesPerSecond: Math.round(result.checkedLeaves / (ms / 1000)),
          findings: result.totalFindings,
          heapBeforeMiB: Math.round(baseHeap / 2 ** 20),
          peakHeapGrowthMiB: Math.round((peakHeap - baseHeap) / 2 ** 20),
        },
      };
      console.log(JSON.stringify(out, null, values.json ? 0 : 2));
    } finally {
      await closeDb();
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
