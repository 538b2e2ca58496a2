import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pgExecutor } from '@/lib/server/db/executors';
import {
  applyMigrations,
  MIGRATIONS_TABLE_DDL,
  PRISMA_ADVISORY_LOCK_KEY,
  readMigrations,
} from '@/lib/server/migrate';
import { type ScratchDatabase, scratchDatabase } from './helpers/db';

/** `npm run db:migrate` on PostgreSQL, recorded the way Prisma records it. */

const realDir = path.resolve('prisma/migrations');
const names = readMigrations(realDir).map((m) => m.name);

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

let scratch: ScratchDatabase;
let client: pg.Client;
const tmpDirs: string[] = [];

function migrationsCopy(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ck-migrations-'));
  tmpDirs.push(dir);
  cpSync(realDir, dir, { recursive: true });
  return dir;
}

beforeEach(async () => {
  scratch = await scratchDatabase('mig');
  client = await connect(scratch.url);
});
afterEach(async () => {
  await client.end();
  await scratch.drop();
});
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

const rows = async () =>
  (
    await client.query(
      'SELECT id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    )
  ).rows;

describe('applyMigrations on PostgreSQL', () => {
  it('applies every migration once, then nothing on the second run', async () => {
    const first = await applyMigrations(pgExecutor(client));
    expect(first.applied).toEqual(names);
    const second = await applyMigrations(pgExecutor(client));
    expect(second).toEqual({ applied: [], alreadyApplied: names, unknown: [] });
    expect(await rows()).toHaveLength(names.length);
    const tables = await client.query(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('User', 'Host', 'ApprovalTicket', 'InterceptionRecord', 'OutboxEvent')",
    );
    expect(tables.rows[0].n).toBe(5);
  });

  it('records each migration as Prisma does: uuid id, sha256 of the file, finished, one step', async () => {
    await applyMigrations(pgExecutor(client));
    const [row] = await rows();
    const file = readFileSync(path.join(realDir, names[0], 'migration.sql'));
    expect(row).toMatchObject({
      migration_name: names[0],
      checksum: createHash('sha256').update(file).digest('hex'),
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    });
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
  });

  it('creates _prisma_migrations with the column types Prisma creates', async () => {
    await applyMigrations(pgExecutor(client));
    const cols = await client.query(
      "SELECT column_name, data_type, character_maximum_length AS len, is_nullable, column_default FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position",
    );
    expect(cols.rows).toEqual([
      {
        column_name: 'id',
        data_type: 'character varying',
        len: 36,
        is_nullable: 'NO',
        column_default: null,
      },
      {
        column_name: 'checksum',
        data_type: 'character varying',
        len: 64,
        is_nullable: 'NO',
        column_default: null,
      },
      {
        column_name: 'finished_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'migration_name',
        data_type: 'character varying',
        len: 255,
        is_nullable: 'NO',
        column_default: null,
      },
      {
        column_name: 'logs',
        data_type: 'text',
        len: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'rolled_back_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'started_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'NO',
        column_default: 'now()',
      },
      {
        column_name: 'applied_steps_count',
        data_type: 'integer',
        len: null,
        is_nullable: 'NO',
        column_default: '0',
      },
    ]);
  });

  it('stops with migration_checksum_mismatch when an applied migration was edited', async () => {
    const dir = migrationsCopy();
    await applyMigrations(pgExecutor(client), { dir });
    const file = path.join(dir, names[0], 'migration.sql');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nCREATE TABLE "Sneaky" (id int);\n`);
    await expect(applyMigrations(pgExecutor(client), { dir })).rejects.toMatchObject({
      code: 'migration_checksum_mismatch',
      message: expect.stringContaining(names[0]),
    });
    const sneaky = await client.query('SELECT to_regclass(\'"Sneaky"\') AS t');
    expect(sneaky.rows[0].t).toBeNull();
  });

  it('accepts an applied migration whose line endings were converted (as Prisma does)', async () => {
    const dir = migrationsCopy();
    await applyMigrations(pgExecutor(client), { dir });
    const file = path.join(dir, names[0], 'migration.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    expect((await applyMigrations(pgExecutor(client), { dir })).applied).toEqual([]);
  });

  it('rolls a failing migration back whole and records nothing for it', async () => {
    const dir = migrationsCopy();
    const bad = '99990101000000_broken';
    cpSync(path.join(realDir, names[0]), path.join(dir, bad), { recursive: true });
    writeFileSync(
      path.join(dir, bad, 'migration.sql'),
      'CREATE TABLE "HalfDone" (id int);\nSELECT 1 / 0;\n',
    );
    await expect(applyMigrations(pgExecutor(client), { dir })).rejects.toMatchObject({
      code: 'migration_failed',
      message: expect.stringContaining('division by zero'),
    });
    expect((await rows()).map((r) => r.migration_name)).toEqual(names);
    const half = await client.query('SELECT to_regclass(\'"HalfDone"\') AS t');
    expect(half.rows[0].t).toBeNull();
  });

  it('refuses to go on past a migration Prisma left failed (finished_at null)', async () => {
    await applyMigrations(pgExecutor(client));
    await client.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ('f', 'x', '99990101000000_failed', 'boom')",
    );
    await expect(applyMigrations(pgExecutor(client))).rejects.toMatchObject({
      code: 'migration_failed_previously',
      message: expect.stringContaining('99990101000000_failed'),
    });
  });

  it('re-applies a migration marked rolled back, as prisma migrate deploy does', async () => {
    // What an operator leaves after `prisma migrate resolve --rolled-back`:
    // the schema undone by hand, the row kept with rolled_back_at set.
    await client.query(MIGRATIONS_TABLE_DDL);
    await client.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, rolled_back_at) VALUES ('r', 'x', $1, now(), now())",
      [names[0]],
    );
    const res = await applyMigrations(pgExecutor(client));
    expect(res.applied).toEqual(names);
    expect(await rows()).toHaveLength(names.length + 1);
  });

  it('lets only one of two concurrent migrators apply (advisory lock)', async () => {
    const other = await connect(scratch.url);
    try {
      const [a, b] = await Promise.all([
        applyMigrations(pgExecutor(client)),
        applyMigrations(pgExecutor(other)),
      ]);
      expect([...a.applied, ...b.applied].sort()).toEqual(names);
      expect(await rows()).toHaveLength(names.length);
    } finally {
      await other.end();
    }
  });

  it('waits for the lock Prisma itself takes, and gives up with migration_lock_timeout', async () => {
    const holder = await connect(scratch.url);
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
      await expect(
        applyMigrations(pgExecutor(client), { lockTimeoutMs: 500 }),
      ).rejects.toMatchObject({ code: 'migration_lock_timeout' });
      expect(await client.query("SELECT to_regclass('_prisma_migrations') AS t")).toMatchObject({
        rows: [{ t: null }],
      });
    } finally {
      await holder.end();
    }
  });
});

describe('npm run db:migrate on PostgreSQL', () => {
  const run = () =>
    spawnSync('npm', ['run', '--silent', 'db:migrate'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: scratch.url },
      timeout: 60_000,
    });

  it('migrates a fresh database, then reports it up to date', () => {
    const first = run();
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`applied ${names[0]}`);
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(`Already up to date (${names.length} migration(s) applied)`);
    expect(second.stdout).not.toContain(':@'); // never prints a password slot
  });

  it('exits 1 with the error code when an applied migration was edited', async () => {
    expect(run().status).toBe(0);
    await client.query("UPDATE _prisma_migrations SET checksum = repeat('0', 64)");
    const res = run();
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('db:migrate failed [migration_checksum_mismatch]');
  });
});
