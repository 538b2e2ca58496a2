import 'server-only';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { acquireDataDirLock } from '@/lib/server/db/data-dir-lock';
import { pgExecutor, pgliteExecutor } from '@/lib/server/db/executors';
import type { DbTarget } from '@/lib/server/db/open';
import { type ApplyOptions, type ApplyResult, applyMigrations } from '@/lib/server/migrate';

/**
 * `npm run db:migrate` on either kind of database. On PGlite it takes the
 * same directory lock as the app: migrating under a running server is
 * exactly the second opener that corrupts the directory.
 */
export async function migrateTarget(
  target: DbTarget,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  if (target.kind === 'postgres') {
    const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 15_000 });
    await client.connect();
    try {
      return await applyMigrations(pgExecutor(client), options);
    } finally {
      await client.end();
    }
  }
  mkdirSync(target.dir, { recursive: true });
  const lock = acquireDataDirLock(target.dir);
  try {
    const db = await PGlite.create({ dataDir: target.dir });
    try {
      return await applyMigrations(pgliteExecutor(db), options);
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
}
