import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '@/lib/server/db/executors';
import { applyMigrations, readMigrationStatus, readMigrations } from '@/lib/server/migrate';

/** The migrator on an in-memory PGlite (what the embedded start does on open). */

const names = readMigrations().map((m) => m.name);
let db: PGlite;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-migrate-pglite-'));

beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('applyMigrations on PGlite', () => {
  it('reports everything pending before the first run', async () => {
    expect(await readMigrationStatus(pgliteExecutor(db))).toEqual({ applied: 0, pending: names });
  });

  it('creates the tables and records the migrations; a second run changes nothing', async () => {
    expect((await applyMigrations(pgliteExecutor(db))).applied).toEqual(names);
    const { rows } = await db.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    expect(rows.map((r) => r.tablename)).toEqual(
      expect.arrayContaining([
        '_prisma_migrations',
        'User',
        'Host',
        'ApprovalTicket',
        'AppSetting',
      ]),
    );
    expect((await applyMigrations(pgliteExecutor(db))).applied).toEqual([]);
    expect(await readMigrationStatus(pgliteExecutor(db))).toEqual({
      applied: names.length,
      pending: [],
    });
  });

  it('rolls a failing migration back whole, leaving earlier ones applied', async () => {
    const dir = path.join(tmp, 'migrations');
    cpSync(path.resolve('prisma/migrations'), dir, { recursive: true });
    cpSync(path.join(dir, names[0]), path.join(dir, '99990101000000_broken'), { recursive: true });
    writeFileSync(
      path.join(dir, '99990101000000_broken', 'migration.sql'),
      'CREATE TABLE "HalfDone" (id int);\nALTER TABLE "Nope" ADD COLUMN x int;\n',
    );
    await expect(applyMigrations(pgliteExecutor(db), { dir })).rejects.toMatchObject({
      code: 'migration_failed',
      message: expect.stringContaining('99990101000000_broken'),
    });
    const half = await db.query<{ t: string | null }>(`SELECT to_regclass('"HalfDone"') AS t`);
    expect(half.rows[0].t).toBeNull();
    expect(await readMigrationStatus(pgliteExecutor(db), dir)).toEqual({
      applied: names.length,
      pending: ['99990101000000_broken'],
    });
  });
});
