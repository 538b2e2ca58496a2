import 'server-only';
import { type DbTarget, describeTarget } from '@/lib/server/db/open';
import { migrateTarget } from '@/lib/server/db/migrate-target';
import { moduleLogger } from '@/lib/server/logger';

const log = moduleLogger('migrate');

/**
 * Applies pending migrations to a PostgreSQL database as the app starts, so
 * that `npm start` on a fresh database needs no manual step. Several
 * instances starting together are safe: the migrator holds Prisma's
 * advisory lock, so one applies and the others wait, then find nothing to
 * do. Says in one line what it did.
 */
export async function migrateOnStart(target: Extract<DbTarget, { kind: 'postgres' }>) {
  const result = await migrateTarget(target);
  const applied = result.applied.length;
  const total = applied + result.alreadyApplied.length;
  const where = describeTarget(target);
  if (applied > 0) {
    log.info(
      { applied: result.applied, total, db: where },
      `applied ${applied} migration(s) on start; ${total} in total`,
    );
  } else {
    log.info({ total, db: where }, `database schema up to date (${total} migration(s) applied)`);
  }
  if (result.unknown.length > 0) {
    log.warn(
      { unknown: result.unknown },
      'the database has migrations that prisma/migrations does not (a newer version ran here?)',
    );
  }
  return result;
}
