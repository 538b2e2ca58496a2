import { rmSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { closeDb, db, dbInfo } from '@/lib/server/db';
import { assertLocalUrl } from './local-url';

/**
 * The run's database (created and migrated by global-setup.ts). `testDb()`
 * is the app's own `db()` client: global setup put the run's URL in
 * DATABASE_URL, and this checks that it did before handing it out.
 */

export function testDatabaseUrl(): string {
  const url = inject('databaseUrl');
  assertLocalUrl(url, 'the integration test database URL');
  return url;
}

export async function testDb(): Promise<PrismaClient> {
  const url = new URL(testDatabaseUrl());
  const info = dbInfo();
  const expected = `${url.host}${url.pathname}`;
  if (info.kind !== 'postgres' || !info.location.includes(expected)) {
    throw new Error(
      `db() points at ${info.kind} ${info.location}, not the run's test database ${expected}`,
    );
  }
  return db();
}

/** Empties every table but the migration history; identities restart at 1. */
export async function truncateAll(): Promise<void> {
  const client = await testDb();
  const rows = await client.$queryRaw<{ tablename: string }[]>`
    SELECT tablename FROM pg_tables
    WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;
  if (rows.length === 0) return;
  const list = rows.map((r) => `"${r.tablename.replaceAll('"', '""')}"`).join(', ');
  await client.$executeRawUnsafe(`TRUNCATE TABLE ${list} RESTART IDENTITY CASCADE`);
  // The tree heads copied outside the database went with the log: a fresh
  // deployment starts a fresh file (set per test file by file-setup.ts).
  if (process.env.TREE_HEAD_FILE) rmSync(process.env.TREE_HEAD_FILE, { force: true });
  // The signing key this process cached went with its row: receipts signed
  // with it would name a kid the emptied JWKS no longer publishes.
  // Imported here, not at the top: the signing module loads the logger, which
  // reads the configuration, and the PGlite tests set theirs after imports.
  const { forgetActiveSigningKey } = await import('@/lib/server/signing/jws');
  forgetActiveSigningKey();
}

/** Call in afterAll of files that used testDb(). */
export async function closeTestDb(): Promise<void> {
  await closeDb();
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * An extra empty database beside the run's (`<run db>_<suffix>`), for tests
 * that need a database of their own (migrating from nothing, drift). The
 * orphan sweep in global-setup.ts catches it if the run dies.
 */
export async function scratchDatabase(suffix: string): Promise<ScratchDatabase> {
  if (!/^[a-z0-9_]{1,20}$/.test(suffix)) throw new Error(`bad scratch database suffix ${suffix}`);
  const runUrl = new URL(testDatabaseUrl());
  const name = `${runUrl.pathname.slice(1)}_${suffix}`;
  const adminUrl = inject('databaseAdminUrl');
  assertLocalUrl(adminUrl, 'the integration admin database URL');
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(runUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
