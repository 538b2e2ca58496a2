import 'server-only';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { acquireDataDirLock } from '@/lib/server/db/data-dir-lock';
import { pgliteExecutor } from '@/lib/server/db/executors';
import {
  type ApplyOptions,
  type MigrationExecutor,
  type MigrationStatus,
  applyMigrations,
  readMigrationStatus,
} from '@/lib/server/migrate';

export type DbTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string };

export interface DbHandle {
  readonly client: PrismaClient;
  readonly kind: DbTarget['kind'];
  migrationStatus(): Promise<MigrationStatus>;
  close(): Promise<void>;
}

/** The embedded database lives in `<DATA_DIR>/pglite`. */
export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/** Where a target points, for logs and /api/ready; never the password. */
export function describeTarget(target: DbTarget): string {
  if (target.kind === 'pglite') return target.dir;
  try {
    const u = new URL(target.url);
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return 'postgresql://(unparseable URL)';
  }
}

/** Read-only access to `_prisma_migrations` through the client, for status checks. */
function clientExecutor(client: PrismaClient, kind: DbTarget['kind']): MigrationExecutor {
  return {
    kind,
    query: (sql, params = []) => client.$queryRawUnsafe(sql, ...params),
    exec: async (script) => {
      await client.$executeRawUnsafe(script);
    },
  };
}

/**
 * Opens a client on a target. PGlite: takes the directory lock, creates
 * the database on first use and applies pending migrations before anyone
 * can query it. Postgres: connects lazily; migrations are `npm run
 * db:migrate`'s job (it runs before the app in the image).
 */
export async function openDatabase(
  target: DbTarget,
  migrate: ApplyOptions = {},
): Promise<DbHandle> {
  if (target.kind === 'postgres') {
    const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: target.url }) });
    return {
      client,
      kind: 'postgres',
      migrationStatus: () => readMigrationStatus(clientExecutor(client, 'postgres'), migrate.dir),
      close: () => client.$disconnect(),
    };
  }

  // PGlite's own mkdir is not recursive: a missing parent would fail its start.
  mkdirSync(target.dir, { recursive: true });
  const lock = acquireDataDirLock(target.dir);
  let pglite: PGlite | undefined;
  try {
    pglite = await PGlite.create({ dataDir: target.dir });
    await applyMigrations(pgliteExecutor(pglite), migrate);
  } catch (err) {
    await pglite?.close().catch(() => {});
    lock.release();
    throw err;
  }
  const db = pglite;
  const client = new PrismaClient({ adapter: new PrismaPGlite(db) });
  return {
    client,
    kind: 'pglite',
    // Through the client, not PGlite directly: it is the one connection, shared.
    migrationStatus: () => readMigrationStatus(clientExecutor(client, 'pglite'), migrate.dir),
    async close() {
      try {
        await client.$disconnect();
        await db.close();
      } finally {
        lock.release();
      }
    },
  };
}
