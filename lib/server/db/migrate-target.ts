import 'server-only';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { acquireDataDirLock } from '@/lib/server/db/data-dir-lock';
import { tightenDataDir } from '@/lib/server/db/data-dir-permissions';
import { pgExecutor, pgliteExecutor } from '@/lib/server/db/executors';
import { type DbTarget, secureEmbeddedDir } from '@/lib/server/db/open';
import { type ApplyOptions, type ApplyResult, applyMigrations } from '@/lib/server/migrate';

/**
 * `npm run db:migrate` on either kind of database. On PGlite it takes the
 * same directory lock as the app: migrating under a running server is
 * exactly the second opener that corrupts the directory.
 */
export async function migrateTarget(
  target: DbTarget,
  options: ApplyOptions = {},
): Promise<ApplyResult & { permissionsFixed: number }> {
  if (target.kind === 'postgres') {
    const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 15_000 });
    await client.connect();
    try {
      return { ...(await applyMigrations(pgExecutor(client), options)), permissionsFixed: 0 };
    } finally {
      await client.end();
    }
  }
  const { root, fixed } = secureEmbeddedDir(target);
  const lock = acquireDataDirLock(target.dir);
  try {
    const db = await PGlite.create({ dataDir: target.dir });
    try {
      return { ...(await applyMigrations(pgliteExecutor(db), options)), permissionsFixed: fixed };
    } finally {
      await db.close();
      // PGlite creates its files 0666 whatever the umask (data-dir-permissions.ts).
      tightenDataDir(root, target.dir);
    }
  } finally {
    lock.release();
  }
}
