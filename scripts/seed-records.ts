// `npm run seed:records -- 1000000 [--session-length 50] [--host seed-records]`:
// inserts that many synthetic, schema-valid InterceptionRecords (chained, with
// their SessionChain heads) under one host, fast: the rows are built and
// hashed here and written 10,000 at a time with INSERT … SELECT FROM unnest, bypassing the ingest's
// validation and locking. For benchmarks and demos, never for real data.
import 'dotenv/config';
import { closeDb, db, dbInfo } from '@/lib/server/db';
import {
  bulkRows,
  chainHeadsInsert,
  runTag,
  syntheticSession,
} from '@/lib/server/records/bulk-rows';
import { unnestInsert } from '@/lib/server/records/columns';

const ROWS_PER_STATEMENT = 10_000;
const PARALLEL = 2;

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

export async function seedRecords(
  total: number,
  opts: { hostName?: string; sessionLength?: number; onProgress?: (done: number) => void } = {},
): Promise<{ hostId: string; inserted: number; sessions: number; tag: string }> {
  const prisma = await db();
  const hostName = opts.hostName ?? 'seed-records';
  const host = await prisma.host.upsert({
    where: { name: hostName },
    create: { name: hostName, description: 'Synthetic records (npm run seed:records).' },
    update: {},
    select: { id: true },
  });
  const length = Math.max(2, opts.sessionLength ?? 50);
  const tag = runTag();
  const perStatement = Math.max(1, Math.floor(ROWS_PER_STATEMENT / length));
  let inserted = 0;
  let sessions = 0;
  const inFlight = new Set<Promise<void>>();
  while (inserted < total) {
    const group = [];
    for (let i = 0; i < perStatement && inserted < total; i++) {
      const n = Math.min(length, total - inserted);
      group.push(bulkRows(syntheticSession(tag, sessions++, n)));
      inserted += n;
    }
    const insert = unnestInsert(host.id, group.flat());
    const heads = chainHeadsInsert(host.id, group);
    const job = prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(insert.sql, ...insert.params);
          await tx.$executeRawUnsafe(heads.sql, ...heads.params);
        },
        { timeout: 300_000, maxWait: 300_000 },
      )
      .then(() => {
        inFlight.delete(job);
      });
    inFlight.add(job);
    if (inFlight.size >= PARALLEL) await Promise.race(inFlight);
    opts.onProgress?.(inserted);
  }
  await Promise.all(inFlight);
  await prisma.$executeRawUnsafe('ANALYZE "InterceptionRecord"');
  return { hostId: host.id, inserted, sessions, tag };
}

async function main(): Promise<void> {
  const total = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const started = Date.now();
  console.error(`Seeding ${total} records into ${dbInfo().kind} ${dbInfo().location}`);
  let shown = 0;
  const result = await seedRecords(total, {
    hostName: arg('host', 'seed-records'),
    sessionLength: Number(arg('session-length', '50')),
    onProgress: (done) => {
      if (done - shown >= 100_000) {
        shown = done;
        console.error(`  ${done} records`);
      }
    },
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(
    JSON.stringify({ ...result, seconds, recordsPerSecond: Math.round(result.inserted / seconds) }),
  );
}

if (process.argv[1]?.endsWith('seed-records.ts')) {
  main()
    .catch((err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    })
    .finally(closeDb);
}
