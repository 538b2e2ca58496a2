import 'server-only';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { acquireDataDirLock } from '@/lib/server/db/data-dir-lock';
import { prepareDataDir, tightenDataDir } from '@/lib/server/db/data-dir-permissions';
import { pgliteExecutor } from '@/lib/server/db/executors';
import {
  type ApplyOptions,
  type MigrationExecutor,
  type MigrationStatus,
  applyMigrations,
  readMigrationStatus,
} from '@/lib/server/migrate';

/**
 * `dataDir`: the DATA_DIR around the PGlite directory, made owner-only with
 * it (data-dir-permissions.ts); without it only `dir` itself is.
 */
export type DbTarget =
  | { kind: 'postgres'; url: string; limits?: PgLimits }
  | { kind: 'pglite'; dir: string; dataDir?: string };

/**
 * Bounds on the app's PostgreSQL pool, so that a locked table or an
 * unreachable server makes a request fail within seconds (503, see
 * lib/server/http/outage.ts) instead of hanging. Timeouts of 0 mean no
 * limit. Migrations run on their own connection (migrate-target.ts) and
 * are not bound by these.
 */
export interface PgLimits {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  /** Opening a connection, and waiting for a free one in a full pool (pg-pool uses one setting). */
  connectTimeoutMs: number;
  poolMax: number;
}

/** A transaction left idle this long (a crashed request mid-transaction) is ended, freeing its locks. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** The pg pool configuration for a target (exported for tests). */
export function pgPoolConfig(url: string, limits?: PgLimits): pg.PoolConfig {
  if (!limits) return { connectionString: url };
  return {
    connectionString: url,
    max: limits.poolMax,
    connectionTimeoutMillis: limits.connectTimeoutMs,
    // Sent as startup parameters: every pooled session has them, and a
    // transaction's `SET LOCAL` can still raise them for one long statement.
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(
      IDLE_IN_TRANSACTION_TIMEOUT_MS,
      limits.statementTimeoutMs,
    ),
    // A server that vanished without closing the socket is noticed.
    keepAlive: true,
  };
}

/**
 * Owner-only DATA_DIR before PGlite opens (data-dir-permissions.ts). `fixed`
 * counts the entries of an existing tree that others could reach: the
 * caller says so in one line (this module stays free of the logger, whose
 * import reads the configuration). Also used by `db:migrate`.
 */
export function secureEmbeddedDir(target: { dir: string; dataDir?: string }): {
  root: string;
  fixed: number;
} {
  const root = target.dataDir ?? target.dir;
  const fixed = prepareDataDir(root, target.dir);
  mkdirSync(target.dir, { recursive: true, mode: 0o700 });
  return { root, fixed };
}

/** The line the app and `db:migrate` print when an existing DATA_DIR was fixed. */
export function permissionsFixedMessage(fixed: number): string {
  return `DATA_DIR permissions: ${fixed} files and directories were open to other users; now owner-only (dirs 0700, files 0600)`;
}

/**
 * The driver under the Prisma client, for the few writes Prisma cannot
 * express (the records ingest's COPY, db/sql-transaction.ts): the same
 * pool, with the same limits, or the same embedded database.
 */
export type DbDriver = { kind: 'postgres'; pool: pg.Pool } | { kind: 'pglite'; pglite: PGlite };

export interface DbHandle {
  readonly client: PrismaClient;
  readonly kind: DbTarget['kind'];
  readonly driver: DbDriver;
  /** PGlite: entries of an existing DATA_DIR that were open to others and were fixed. */
  readonly permissionsFixed: number;
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
    // One pool for Prisma and the raw driver (sql-transaction.ts). An idle
    // connection that dies is dropped by the pool; unheard, its error event
    // would end the process.
    const pool = new pg.Pool(pgPoolConfig(target.url, target.limits));
    pool.on('error', () => {});
    const client = new PrismaClient({ adapter: new PrismaPg(pool) });
    return {
      client,
      kind: 'postgres',
      driver: { kind: 'postgres', pool },
      permissionsFixed: 0,
      migrationStatus: () => readMigrationStatus(clientExecutor(client, 'postgres'), migrate.dir),
      async close() {
        await client.$disconnect();
        await pool.end();
      },
    };
  }

  // PGlite's own mkdir is not recursive: a missing parent would fail its start.
  const { root, fixed } = secureEmbeddedDir(target);
  const lock = acquireDataDirLock(target.dir);
  let pglite: PGlite | undefined;
  try {
    pglite = await PGlite.create({ dataDir: target.dir });
    await applyMigrations(pgliteExecutor(pglite), migrate);
    // PGlite creates its files 0666 whatever the umask: tighten what it made.
    tightenDataDir(root, target.dir);
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
    driver: { kind: 'pglite', pglite: db },
    permissionsFixed: fixed,
    // Through the client, not PGlite directly: it is the one connection, shared.
    migrationStatus: () => readMigrationStatus(clientExecutor(client, 'pglite'), migrate.dir),
    async close() {
      try {
        await client.$disconnect();
        await db.close();
        tightenDataDir(root, target.dir);
      } finally {
        lock.release();
      }
    },
  };
}
