// `npm run worker`: the BullMQ worker and the outbox relay as their own
// process, against DATABASE_URL. Runs with the react-server condition so
// that `server-only` imports resolve.
import 'dotenv/config';
import { ensureApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { installShutdownHandlers, loadConfigOrExit, openDatabase } from '@/lib/server/boot';
import { db, dbInfo } from '@/lib/server/db';
import { checkKeyFingerprints } from '@/lib/server/db/key-fingerprints';
import { moduleLogger } from '@/lib/server/logger';
import { startBackground } from '@/lib/server/queue/runtime';
import { ensureSigningKey } from '@/lib/server/signing/keys';
import { ensureTransparencyLoop } from '@/lib/server/transparency/runtime';

const log = moduleLogger('worker-process');

async function main(): Promise<void> {
  const cfg = loadConfigOrExit();
  if (cfg.embedded) {
    // One process per PGlite directory, always: a second opener
    // can corrupt it. The embedded start runs the worker inside the app.
    log.fatal(
      { code: 'worker_needs_database_url' },
      'npm run worker needs DATABASE_URL (PostgreSQL). With the embedded database the app runs the worker itself (RUN_WORKER=true).',
    );
    process.exit(1);
  }
  await openDatabase();
  // The worker decrypts webhook secrets the app encrypted: same APP_ENCRYPTION_KEY
  // (required), checked against the fingerprint the database holds. It signs no
  // sessions, so AUTH_SECRET is checked only when given.
  await checkKeyFingerprints(
    await db(),
    cfg.AUTH_SECRET ? ['APP_ENCRYPTION_KEY', 'AUTH_SECRET'] : ['APP_ENCRYPTION_KEY'],
  );
  // Jobs sign receipts and tree heads: the same active key as the app (or
  // SIGNING_KEY imported, when it is set here too).
  await ensureSigningKey(await db());
  // Timers of the relay and heartbeat are unref'd; this keeps the process up
  // while Redis is unreachable and the worker has no live socket.
  const keepAlive = setInterval(() => {}, 60_000);
  installShutdownHandlers('worker', () => clearInterval(keepAlive));
  startBackground({ db: await db(), worker: true });
  // The expiry scheduler (and the ticket events it listens to) here too: with
  // the app instances down, tickets still expire at their deadline.
  ensureApprovalsRuntime();
  // Issue 13: appends stored records and decisions to the transparency log, signs tree heads.
  ensureTransparencyLoop();
  log.info({ db: dbInfo().location }, 'worker started');
}

main().catch((err) => {
  log.fatal(
    { code: (err as { code?: unknown })?.code },
    `worker failed to start: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
});
