import 'server-only';
import { db, dbInfo, migrationStatus, pingDb } from '../db';
import { replicaStatus } from '../db/audit-db';
import type { ReplicaState } from '../db/replica';
import { withTimeout } from '../queue/connection';
import { getQueueStatus, type QueueStatus } from '../queue/status';

/**
 * What /api/ready answers. Public, so it carries states, counts and stable
 * reason codes only: no URLs, hosts or error texts that could leak
 * credentials.
 */
export interface Readiness {
  status: 'ready' | 'degraded' | 'unready';
  /** Why the status is not `ready`, one stable code each (empty when ready). */
  reasons: ReadinessReason[];
  checks: {
    database: { ok: boolean; kind: 'postgres' | 'pglite' };
    migrations: { ok: boolean; applied: number | null; pending: string[] };
    /** An enabled admin exists: without one nobody can administer the app (e.g. a restored backup). */
    admin: { ok: boolean };
    redis: { ok: boolean };
    /** The audit read replica (DATABASE_REPLICA_URL); audit reads use the primary while it is unreachable. */
    replica: { state: ReplicaState };
    queue: { waiting: number; scheduled: number; outboxPending: number };
  };
}

export const READINESS_REASONS = {
  database_unreachable: 'The database did not answer a trivial query in time.',
  migrations_pending:
    'Migrations are pending (or their state could not be read): run `npm run db:migrate`.',
  no_enabled_admin: 'No enabled admin user exists: nobody can administer the app.',
  admin_check_failed: 'Whether an enabled admin exists could not be read in time.',
  redis_unreachable: 'Redis is unreachable: queued work waits in the outbox until it returns.',
  replica_unreachable:
    'The read replica (DATABASE_REPLICA_URL) is unreachable: audit reads use the primary until it returns.',
} as const;
export type ReadinessReason = keyof typeof READINESS_REASONS;

export interface ReadinessDeps {
  pingDb: () => Promise<boolean>;
  migrationStatus: () => Promise<{ applied: number; pending: string[] }>;
  hasEnabledAdmin: () => Promise<boolean>;
  queueStatus: () => Promise<QueueStatus>;
  replicaStatus?: () => Promise<ReplicaState>;
  dbKind: 'postgres' | 'pglite';
}

/** Each dependency check gets this long: the endpoint answers within about this. */
export const CHECK_TIMEOUT_MS = 2_000;

const offline: QueueStatus = {
  redis: 'offline',
  waiting: 0,
  scheduled: 0,
  outboxScheduled: 0,
  outboxPending: 0,
  failed: 0,
};

/**
 * Unready (503) when the database does not answer, a migration is pending
 * or no enabled admin exists. Redis down is 'degraded', not 'unready': the
 * app serves, and queued work waits in the outbox until Redis returns. The
 * Redis state comes from the shared queue status, which reports offline
 * only after consecutive failed probes (queue/status.ts).
 */
export async function buildReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const [dbOk, migrations, admin, queue, replica] = await Promise.all([
    withTimeout(deps.pingDb(), CHECK_TIMEOUT_MS, 'db_ping_timeout').catch(() => false),
    withTimeout(deps.migrationStatus(), CHECK_TIMEOUT_MS, 'migrations_timeout').catch(
      () => undefined,
    ),
    withTimeout(deps.hasEnabledAdmin(), CHECK_TIMEOUT_MS, 'admin_check_timeout').catch(
      () => undefined,
    ),
    withTimeout(deps.queueStatus(), CHECK_TIMEOUT_MS, 'queue_status_timeout').catch(() => offline),
    deps.replicaStatus
      ? withTimeout(deps.replicaStatus(), CHECK_TIMEOUT_MS, 'replica_status_timeout').catch(
          (): ReplicaState => 'unreachable',
        )
      : ('not_configured' as const),
  ]);
  const migrationsOk = migrations !== undefined && migrations.pending.length === 0;
  const redisOk = queue.redis === 'online';
  const reasons: ReadinessReason[] = [];
  if (!dbOk) reasons.push('database_unreachable');
  if (!migrationsOk) reasons.push('migrations_pending');
  // With the database down, "no admin" would only repeat that.
  if (dbOk && admin === false) reasons.push('no_enabled_admin');
  if (dbOk && admin === undefined) reasons.push('admin_check_failed');
  const unready = reasons.length > 0;
  if (!redisOk) reasons.push('redis_unreachable');
  if (replica === 'unreachable') reasons.push('replica_unreachable');
  const degraded = !redisOk || replica === 'unreachable';
  return {
    status: unready ? 'unready' : degraded ? 'degraded' : 'ready',
    reasons,
    checks: {
      database: { ok: dbOk, kind: deps.dbKind },
      migrations: {
        ok: migrationsOk,
        applied: migrations?.applied ?? null,
        pending: migrations?.pending ?? [],
      },
      admin: { ok: admin === true },
      redis: { ok: redisOk },
      replica: { state: replica },
      queue: {
        waiting: queue.waiting,
        scheduled: queue.scheduled,
        outboxPending: queue.outboxPending,
      },
    },
  };
}

/** True when at least one enabled user holds the admin role. */
export async function hasEnabledAdmin(): Promise<boolean> {
  const client = await db();
  // Raw SQL: the PGlite adapter rejects Prisma's `has` filter on enum arrays.
  const [row] = await client.$queryRaw<{ ok: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM "User" WHERE 'admin'::"Role" = ANY(roles) AND NOT disabled
    ) AS ok`;
  return row?.ok === true;
}

/** The readiness of this process. */
export function getReadiness(): Promise<Readiness> {
  return buildReadiness({
    pingDb: () => pingDb(CHECK_TIMEOUT_MS),
    migrationStatus,
    hasEnabledAdmin,
    // Readiness waits for a fresh probe (the header does not).
    queueStatus: () => getQueueStatus({ maxWaitMs: Number.POSITIVE_INFINITY }),
    replicaStatus,
    dbKind: dbInfo().kind,
  });
}

/** 503 only when the app cannot serve: database down, schema behind, or no admin. */
export function readinessHttpStatus(r: Readiness): 200 | 503 {
  return r.status === 'unready' ? 503 : 200;
}
