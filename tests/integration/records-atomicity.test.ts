import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestRecords } from '@/lib/server/records/ingest';
import { closeTestDb, testDatabaseUrl, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

/**
 * "An ingest killed mid-batch leaves nothing partial": the batch is one
 * transaction, so a failure on the n-th row, or the process dying while
 * the insert runs, leaves no record and no moved chain head.
 */

async function state() {
  const prisma = await testDb();
  return {
    records: await prisma.interceptionRecord.count(),
    chains: await prisma.sessionChain.findMany({
      select: { sessionId: true, headHash: true, recordCount: true },
      orderBy: { sessionId: 'asc' },
    }),
  };
}

async function installTrigger(body: string) {
  const prisma = await testDb();
  await prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION records_test_trap() RETURNS trigger AS $$
    BEGIN ${body} RETURN NEW; END $$ LANGUAGE plpgsql`);
  await prisma.$executeRawUnsafe(
    `CREATE TRIGGER records_test_trap BEFORE INSERT ON "InterceptionRecord"
     FOR EACH ROW EXECUTE FUNCTION records_test_trap()`,
  );
}

let host: { id: string };
let child: ChildProcess | undefined;

beforeEach(async () => {
  await truncateAll();
  host = await seedHost('atomic');
  await ingestRecords(
    host.id,
    [0, 1].map((i) => makeRecord('a', i)),
  );
});
afterEach(async () => {
  child?.kill('SIGKILL');
  const prisma = await testDb();
  await prisma.$executeRawUnsafe(
    `DROP TRIGGER IF EXISTS records_test_trap ON "InterceptionRecord"`,
  );
  await prisma.$executeRawUnsafe(`DROP FUNCTION IF EXISTS records_test_trap()`);
});
afterAll(closeTestDb);

describe('a batch is all or nothing', () => {
  it('a database failure on the 700th row of 1,000 leaves nothing of the batch', async () => {
    const before = await state();
    await installTrigger(
      `IF NEW."sessionId" = 'b' AND NEW.sequence = 199 THEN RAISE EXCEPTION 'disk on fire'; END IF;`,
    );
    const batch = [
      ...Array.from({ length: 500 }, (_, i) => makeRecord('a', i + 2)),
      ...Array.from({ length: 500 }, (_, i) => makeRecord('b', i)),
    ];
    await expect(ingestRecords(host.id, batch)).rejects.toThrow(/disk on fire/);
    expect(await state()).toEqual(before);
  });

  it('killing the ingesting process mid-insert leaves nothing of the batch', async () => {
    const before = await state();
    // The insert sleeps on one row, so the process is surely mid-transaction when killed.
    await installTrigger(`IF NEW.sequence = 300 THEN PERFORM pg_sleep(3); END IF;`);
    // node itself (not npx) so that the killed process is the one holding the connection.
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=react-server',
        'tests/integration/records-ingest-child.ts',
        host.id,
        'killed',
        '1000',
      ],
      {
        env: { ...process.env, DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'silent' },
        stdio: 'pipe',
      },
    );
    let out = '';
    child.stdout?.on('data', (d) => (out += String(d)));
    const prisma = await testDb();
    const sleeping = async () => {
      const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE '%COPY "InterceptionRecord"%'
           AND pid <> pg_backend_pid()`,
      );
      return rows[0].n > 0;
    };
    const deadline = Date.now() + 30_000;
    while (!(await sleeping())) {
      if (Date.now() > deadline) throw new Error(`the child never reached the insert: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    // The server notices the dead client when the sleep ends and the insert
    // finishes; it must then roll back, not commit. Wait for the backend to go.
    const gone = Date.now() + 20_000;
    while (await sleeping()) {
      if (Date.now() > gone) throw new Error('the killed ingest never ended');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out).not.toContain('committed');
    expect(await state()).toEqual(before);
  });
});
