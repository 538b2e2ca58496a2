import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';
import {
  type DbDriver,
  type DbHandle,
  type DbTarget,
  describeTarget,
  openDatabase,
  pgliteDir,
} from '@/lib/server/db/open';
import { replicaSlot } from '@/lib/server/db/replica';
import type { MigrationStatus } from '@/lib/server/migrate';

/**
 * The process's one Prisma client, on `globalThis` so that Next's module
 * reloading in dev does not open a second PGlite on the same directory.
 * Created on first use, never at import: `next build` must open nothing.
 */

const slot = globalThis as typeof globalThis & { __checkpointDb?: Promise<DbHandle> };

export function dbTarget(): DbTarget {
  const cfg = config();
  return cfg.DATABASE_URL
    ? {
        kind: 'postgres',
        url: cfg.DATABASE_URL,
        limits: {
          statementTimeoutMs: cfg.DATABASE_STATEMENT_TIMEOUT_MS,
          lockTimeoutMs: cfg.DATABASE_LOCK_TIMEOUT_MS,
          connectTimeoutMs: cfg.DATABASE_CONNECT_TIMEOUT_MS,
          poolMax: cfg.DATABASE_POOL_MAX,
        },
      }
    : { kind: 'pglite', dir: pgliteDir(cfg.dataDir), dataDir: cfg.dataDir };
}

function handle(): Promise<DbHandle> {
  if (!slot.__checkpointDb) {
    const opening = openDatabase(dbTarget());
    slot.__checkpointDb = opening;
    // A failed open is not cached: the next call tries again.
    opening.catch(() => {
      if (slot.__checkpointDb === opening) slot.__checkpointDb = undefined;
    });
  }
  return slot.__checkpointDb;
}

export async function db(): Promise<PrismaClient> {
  return (await handle()).client;
}

/** The driver under db()'s client (the same pool or embedded database), for sql-transaction.ts. */
export async function dbDriver(): Promise<DbDriver> {
  return (await handle()).driver;
}

/** Disconnects and, on PGlite, closes the database and releases its directory lock. */
export async function closeDb(): Promise<void> {
  const router = replicaSlot.__checkpointReplica;
  replicaSlot.__checkpointReplica = undefined;
  await router?.close();
  const opening = slot.__checkpointDb;
  if (!opening) return;
  slot.__checkpointDb = undefined;
  const h = await opening.catch(() => undefined);
  await h?.close();
}

/** True when a trivial query answers within `timeoutMs`. Never throws. */
export async function pingDb(timeoutMs = 3_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const ping = (async () => {
    const client = await db();
    await client.$queryRaw`SELECT 1`;
    return true;
  })().catch(() => false);
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Which database this process uses; safe to show (no password). */
export function dbInfo(): { kind: 'postgres' | 'pglite'; location: string } {
  const target = dbTarget();
  return { kind: target.kind, location: describeTarget(target) };
}

/** Entries of an existing DATA_DIR that were open to other users and were fixed on open. */
export async function dataDirPermissionsFixed(): Promise<number> {
  return (await handle()).permissionsFixed;
}

/** Applied count and pending migration names, for /api/ready. */
export async function migrationStatus(): Promise<MigrationStatus> {
  return (await handle()).migrationStatus();
}
