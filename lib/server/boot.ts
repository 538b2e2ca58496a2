import 'server-only';
import { connectTicketEventPublisher } from './approvals/events';
import { ensureApprovalsRuntime, stopApprovalsRuntime } from './approvals/runtime';
import { ensureInitialAdmin } from './auth/bootstrap-admin';
import { type Config, ConfigError, config } from './config';
import { closeDb, dataDirPermissionsFixed, db, dbInfo, dbTarget, migrationStatus } from './db';
import { checkKeyFingerprints } from './db/key-fingerprints';
import { migrateOnStart } from './db/migrate-on-start';
import { permissionsFixedMessage } from './db/open';
import { ensureBuiltInHost } from './hosts/builtin';
import { installPeerAddressHook } from './http/client-address';
import { moduleLogger } from './logger';
import { MigrationError } from './migrate';
import { startBackground, stopBackground } from './queue/runtime';
import { closeInProcessRecordSinks } from './records/in-process-sink';
import { ensureSigningKey } from './signing/keys';
import { ensureTransparencyLoop, stopTransparencyLoop } from './transparency/runtime';

const log = moduleLogger('boot');

const g = globalThis as unknown as { __checkpointBoot?: Promise<void> };

/**
 * Brings the app process up: configuration, database (migrated unless
 * MIGRATE_ON_START=false on PostgreSQL), initial admin, built-in host,
 * outbox relay and (RUN_WORKER) the worker, and signal handlers. Idempotent: a second call returns the
 * first call's promise.
 */
export function boot(): Promise<void> {
  g.__checkpointBoot ??= run();
  return g.__checkpointBoot;
}

async function run(): Promise<void> {
  const cfg = loadConfigOrExit();
  // Before the first request: sign-in throttling keys on the socket's address.
  installPeerAddressHook();
  await openDatabase();
  // Every process on this database holds the same keys, or none starts (issue 17).
  await checkKeyFingerprints(await db());
  // Issue 13: the key receipts and tree heads are signed with (SIGNING_KEY, or
  // generated once; every process then reads the same active key).
  await ensureSigningKey(await db());
  // Item 8: an existing DATA_DIR others could read was made owner-only on open.
  const fixed = await dataDirPermissionsFixed();
  if (fixed > 0) log.warn({ fixed }, permissionsFixedMessage(fixed));
  await ensureInitialAdmin();
  await ensureBuiltInHost(await db());
  startBackground({ db: await db(), worker: cfg.RUN_WORKER });
  // Issue 13: the transparency log's appender and tree-head signer run with the worker.
  if (cfg.RUN_WORKER) ensureTransparencyLoop();
  // The ticket-event subscriber and the expiry scheduler run from the start, not
  // only after the first approval request reaches this instance.
  ensureApprovalsRuntime();
  // Issue 17 item 7: the publisher too, so the first decision's event is not
  // lost while it connects (it queues until ready in any case).
  connectTicketEventPublisher();
  if (!cfg.RUN_WORKER && cfg.embedded) {
    // `npm run worker` refuses the embedded database, so nothing would ever
    // run the queued work.
    log.warn('RUN_WORKER is off with the embedded database: queued jobs will not run');
  }
  installShutdownHandlers('app');
  log.info({ db: dbInfo().kind, worker: cfg.RUN_WORKER }, 'checkpoint started');
}

/** Validated configuration, or a fatal log naming the bad variables and exit 1. */
export function loadConfigOrExit(): Config {
  try {
    return config();
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal({ code: err.code }, err.message);
      process.exit(1);
    }
    throw err;
  }
}

export class BootError extends Error {
  constructor(
    readonly code: 'db_unreachable' | 'migrations_pending',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens the database and checks its schema. PGlite migrates itself on open;
 * PostgreSQL is migrated here (several instances at once are safe: see
 * migrate-on-start.ts) unless MIGRATE_ON_START=false, in which case a
 * database behind the migrations folder stops the start, with the fix.
 */
export async function openDatabase(): Promise<void> {
  const target = dbTarget();
  const toMigrate = target.kind === 'postgres' && config().MIGRATE_ON_START ? target : null;
  let status: { applied: number; pending: string[] };
  try {
    if (toMigrate) await migrateOnStart(toMigrate);
    await db();
    status = await migrationStatus();
  } catch (err) {
    // An edited or failed migration keeps its own code and advice.
    if (err instanceof MigrationError) throw err;
    const where = dbInfo();
    throw new BootError(
      'db_unreachable',
      `cannot open the ${where.kind} database at ${where.location}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (status.pending.length > 0) {
    const off = target.kind === 'postgres' && !toMigrate ? ' (MIGRATE_ON_START=false)' : '';
    throw new BootError(
      'migrations_pending',
      status.applied === 0
        ? `the database at ${dbInfo().location} has no schema yet${off}: run \`npm run db:migrate\` first`
        : `the database is missing migrations ${status.pending.join(', ')}${off}: run \`npm run db:migrate\``,
    );
  }
}

let installed = false;

/**
 * SIGTERM/SIGINT close the worker (letting running jobs finish), the queues
 * and the database, then exit. Inside Next this replaces Next's own handler
 * (NEXT_MANUAL_SIG_HANDLE=1 in the start script), which would exit after
 * ~1.5 s and cut the worker off (the job would re-run as stalled a minute
 * later), so we must exit ourselves.
 */
export function installShutdownHandlers(role: 'app' | 'worker', before?: () => void): void {
  if (installed) return;
  installed = true;
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal, role }, 'shutting down');
    // A stuck close must not keep the process alive forever.
    setTimeout(() => {
      log.error('shutdown timed out, exiting');
      process.exit(1);
    }, 20_000).unref();
    before?.();
    try {
      await stopApprovalsRuntime();
      await stopTransparencyLoop();
      await stopBackground();
      // Buffered in-process records are flushed while the database is open.
      await closeInProcessRecordSinks();
      await closeDb();
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, 'shutdown error');
    }
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
