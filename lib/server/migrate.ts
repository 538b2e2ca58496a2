import 'server-only';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Applies `prisma/migrations/<ts>_<name>/migration.sql` offline, recording
 * each one in `_prisma_migrations` exactly as Prisma's schema engine does, so
 * that `prisma migrate deploy` (run later by someone with internet access)
 * sees them as applied. Used by `npm run db:migrate` and by the embedded
 * start (lib/server/db).
 */

/** The one interface the migrator needs from a connection (pg or PGlite). */
export interface MigrationExecutor {
  readonly kind: 'postgres' | 'pglite';
  /** One statement, optionally with $1… parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** A script of several statements, no parameters. */
  exec(script: string): Promise<void>;
}

export type MigrationErrorCode =
  | 'migrations_dir_missing'
  | 'migration_file_missing'
  | 'migration_checksum_mismatch'
  | 'migration_failed_previously'
  | 'migration_failed'
  | 'migration_lock_timeout';

export class MigrationError extends Error {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

export interface Migration {
  /** The directory name, e.g. `20261202091838_init` (Prisma's `migration_name`). */
  name: string;
  sql: string;
  /** SHA-256 hex of the file's bytes, as Prisma computes it. */
  checksum: string;
}

export interface ApplyResult {
  applied: string[];
  alreadyApplied: string[];
  /** Recorded in the database but absent from the folder (a newer version ran here). */
  unknown: string[];
}

export interface ApplyOptions {
  dir?: string;
  /** How long to wait for another migrator's advisory lock (Postgres). */
  lockTimeoutMs?: number;
}

/** Byte for byte the table Prisma's Postgres connector creates. */
export const MIGRATIONS_TABLE_DDL = `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

/** Prisma's own key: our migrator and `prisma migrate deploy` exclude each other. */
export const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export function defaultMigrationsDir(): string {
  return path.join(process.cwd(), 'prisma', 'migrations');
}

export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql, 'utf8').digest('hex');
}

/**
 * Prisma accepts a file whose line endings were converted (git autocrlf)
 * after it was applied; so do we, and nothing else.
 */
export function matchesChecksum(sql: string, checksum: string): boolean {
  const lf = sql.replace(/\r\n/g, '\n');
  const crlf = lf.replace(/\n/g, '\r\n');
  return [sql, lf, crlf].some((variant) => checksumOf(variant) === checksum);
}

/** The folder's migrations in the order Prisma applies them (by name). */
export function readMigrations(dir: string = defaultMigrationsDir()): Migration[] {
  if (!existsSync(dir)) {
    throw new MigrationError(
      'migrations_dir_missing',
      `migrations directory ${dir} does not exist`,
    );
  }
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const file = path.join(dir, name, 'migration.sql');
      if (!existsSync(file)) {
        throw new MigrationError(
          'migration_file_missing',
          `migration ${name} has no migration.sql (${file})`,
        );
      }
      const sql = readFileSync(file, 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    });
}

export interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
  logs: string | null;
}

/** Reads `_prisma_migrations`; an absent table means nothing applied yet. */
export async function readAppliedRows(exec: MigrationExecutor): Promise<AppliedRow[]> {
  const [{ present }] = await exec.query<{ present: boolean }>(
    "SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present",
  );
  if (!present) return [];
  return exec.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM _prisma_migrations ORDER BY started_at, migration_name',
  );
}

export interface MigrationPlan {
  pending: Migration[];
  alreadyApplied: string[];
  unknown: string[];
}

/**
 * What to do given the folder and the table, refusing (as Prisma does) an
 * edited applied migration or one left failed by an earlier run.
 */
export function planMigrations(migrations: Migration[], rows: AppliedRow[]): MigrationPlan {
  // Rolled-back rows are history only: Prisma re-applies those migrations.
  const live = rows.filter((r) => r.rolled_back_at === null);
  const failed = live.find((r) => r.finished_at === null);
  if (failed) {
    throw new MigrationError(
      'migration_failed_previously',
      `migration ${failed.migration_name} failed in an earlier run and was never completed; ` +
        'fix the database by hand, then mark it rolled back (`prisma migrate resolve --rolled-back`) ' +
        `or delete its row from _prisma_migrations. Logs: ${failed.logs ?? '(none)'}`,
    );
  }
  const byName = new Map(live.map((r) => [r.migration_name, r]));
  const pending: Migration[] = [];
  const alreadyApplied: string[] = [];
  for (const m of migrations) {
    const row = byName.get(m.name);
    if (!row) {
      pending.push(m);
    } else if (!matchesChecksum(m.sql, row.checksum)) {
      throw new MigrationError(
        'migration_checksum_mismatch',
        `migration ${m.name} was modified after it was applied (checksum ${row.checksum} in the ` +
          `database, ${m.checksum} on disk); restore the file and put the change in a new migration`,
      );
    } else {
      alreadyApplied.push(m.name);
    }
  }
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...byName.keys()].filter((n) => !known.has(n));
  return { pending, alreadyApplied, unknown };
}

async function withAdvisoryLock<T>(
  exec: MigrationExecutor,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ locked }] = await exec.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1) AS locked',
      [PRISMA_ADVISORY_LOCK_KEY],
    );
    if (locked) break;
    if (Date.now() >= deadline) {
      throw new MigrationError(
        'migration_lock_timeout',
        `another migrator holds the advisory lock ${PRISMA_ADVISORY_LOCK_KEY} ` +
          `(waited ${timeoutMs} ms); retry when it has finished`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  try {
    return await fn();
  } finally {
    // A failed unlock means a dead session, which released the lock anyway;
    // it must not hide the error that got us here.
    await exec.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]).catch(() => {});
  }
}

/**
 * One migration in one transaction, its row written inside it: a failure
 * leaves neither half-applied DDL nor a row behind (Prisma would leave a
 * failed row; ours has nothing to resolve because nothing changed).
 */
async function applyOne(exec: MigrationExecutor, m: Migration): Promise<void> {
  await exec.exec('BEGIN');
  try {
    const id = randomUUID();
    await exec.query(
      'INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, m.checksum, m.name],
    );
    await exec.exec(m.sql);
    // clock_timestamp(): now() would equal started_at inside the transaction.
    await exec.query(
      'UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1',
      [id],
    );
    await exec.exec('COMMIT');
  } catch (err) {
    await exec.exec('ROLLBACK').catch(() => {});
    const detail = err instanceof Error ? err.message : String(err);
    throw new MigrationError(
      'migration_failed',
      `migration ${m.name} failed and was rolled back: ${detail}`,
    );
  }
}

/** Applies every pending migration in order; safe to run any number of times. */
export async function applyMigrations(
  exec: MigrationExecutor,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const migrations = readMigrations(options.dir);
  const run = async (): Promise<ApplyResult> => {
    await exec.exec(MIGRATIONS_TABLE_DDL.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'));
    const plan = planMigrations(migrations, await readAppliedRows(exec));
    const applied: string[] = [];
    for (const m of plan.pending) {
      await applyOne(exec, m);
      applied.push(m.name);
    }
    return { applied, alreadyApplied: plan.alreadyApplied, unknown: plan.unknown };
  };
  // PGlite has a single connection and its directory lock; Postgres may see
  // several app instances starting at once.
  return exec.kind === 'postgres'
    ? withAdvisoryLock(exec, options.lockTimeoutMs ?? 60_000, run)
    : run();
}

export interface MigrationStatus {
  applied: number;
  pending: string[];
}

/** For readiness checks: how far the database is behind the folder. */
export async function readMigrationStatus(
  exec: MigrationExecutor,
  dir?: string,
): Promise<MigrationStatus> {
  const migrations = readMigrations(dir);
  const rows = await readAppliedRows(exec);
  const done = new Set(
    rows
      .filter((r) => r.finished_at !== null && r.rolled_back_at === null)
      .map((r) => r.migration_name),
  );
  return {
    applied: migrations.filter((m) => done.has(m.name)).length,
    pending: migrations.filter((m) => !done.has(m.name)).map((m) => m.name),
  };
}
