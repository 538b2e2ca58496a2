import 'server-only';
import { dbInfo, migrationStatus, pingDb } from '../db';
import { withTimeout } from '../queue/connection';
import { getQueueStatus, type QueueStatus } from '../queue/status';

/**
 * What /api/ready answers. Public, so it carries states and counts only: no
 * URLs, hosts or error texts that could leak credentials.
 */
export interface Readiness {
  status: 'ready' | 'degraded' | 'unready';
  checks: {
    database: { ok: boolean; kind: 'postgres' | 'pglite' };
    migrations: { ok: boolean; applied: number | null; pending: string[] };
    redis: { ok: boolean };
    queue: { waiting: number; outboxPending: number };
  };
}

export interface ReadinessDeps {
  pingDb: () => Promise<boolean>;
  migrationStatus: () => Promise<{ applied: number; pending: string[] }>;
  queueStatus: () => Promise<QueueStatus>;
  dbKind: 'postgres' | 'pglite';
}

const CHECK_TIMEOUT_MS = 2_000;

/**
 * Ready when the database answers and no migration is pending. Redis down is
 * 'degraded', not 'unready': the app serves, and queued work waits in the
 * outbox until Redis returns.
 */
export async function buildReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const [dbOk, migrations, queue] = await Promise.all([
    withTimeout(deps.pingDb(), CHECK_TIMEOUT_MS, 'db_ping_timeout').catch(() => false),
    withTimeout(deps.migrationStatus(), CHECK_TIMEOUT_MS, 'migrations_timeout').catch(
      () => undefined,
    ),
    deps
      .queueStatus()
      .catch((): QueueStatus => ({ redis: 'offline', waiting: 0, outboxPending: 0, failed: 0 })),
  ]);
  const migrationsOk = migrations !== undefined && migrations.pending.length === 0;
  const redisOk = queue.redis === 'online';
  const status = !dbOk || !migrationsOk ? 'unready' : redisOk ? 'ready' : 'degraded';
  return {
    status,
    checks: {
      database: { ok: dbOk, kind: deps.dbKind },
      migrations: {
        ok: migrationsOk,
        applied: migrations?.applied ?? null,
        pending: migrations?.pending ?? [],
      },
      redis: { ok: redisOk },
      queue: { waiting: queue.waiting, outboxPending: queue.outboxPending },
    },
  };
}

/** The readiness of this process. */
export function getReadiness(): Promise<Readiness> {
  return buildReadiness({
    pingDb: () => pingDb(CHECK_TIMEOUT_MS),
    migrationStatus,
    queueStatus: getQueueStatus,
    dbKind: dbInfo().kind,
  });
}

/** 503 only when the app cannot serve: database down or schema behind. */
export function readinessHttpStatus(r: Readiness): 200 | 503 {
  return r.status === 'unready' ? 503 : 200;
}
