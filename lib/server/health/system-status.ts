import 'server-only';
import { db, dbInfo, migrationStatus, pingDb } from '../db';
import { HOUSEKEEPING_ACTION, JOB_LANES, type JobLane } from '../jobs/definitions';
import { withTimeout } from '../queue/connection';
import { workerRunsHere } from '../queue/producer';
import { getQueueStatus, type QueueStatus } from '../queue/status';
import { laneHeartbeatKey, WORKER_HEARTBEAT_KEY, type WorkerHeartbeat } from '../queue/heartbeat';

/** Everything /status shows. Locations carry no credentials. */
export interface SystemStatus {
  database: { ok: boolean; kind: 'postgres' | 'pglite'; location: string };
  migrations: { applied: number; pending: string[] } | null;
  queue: QueueStatus;
  worker: {
    inThisProcess: boolean;
    /** The last worker to write, whatever its lanes. */
    heartbeat: WorkerHeartbeat | null;
    /** Per lane, the last worker consuming it; a lane missing here was never consumed. */
    lanes?: Partial<Record<JobLane, WorkerHeartbeat>>;
  };
  housekeeping: { at: Date; details: Record<string, unknown> } | null;
  checkedAt: Date;
}

/** A worker that has not written for this long is shown as silent. */
export const HEARTBEAT_STALE_MS = 60_000;

const TIMEOUT_MS = 2_000;

export async function getSystemStatus(): Promise<SystemStatus> {
  const info = dbInfo();
  const [ok, migrations, queue, extra] = await Promise.all([
    pingDb(TIMEOUT_MS),
    withTimeout(migrationStatus(), TIMEOUT_MS, 'migrations_timeout').catch(() => null),
    // /status shows a fresh probe (the header badge shows the last reading).
    getQueueStatus({ maxWaitMs: Number.POSITIVE_INFINITY }),
    withTimeout(readDbExtras(), TIMEOUT_MS, 'status_timeout').catch(() => ({
      heartbeat: null,
      lanes: undefined,
      housekeeping: null,
    })),
  ]);
  return {
    database: { ok, kind: info.kind, location: info.location },
    migrations,
    queue,
    worker: { inThisProcess: workerRunsHere(), heartbeat: extra.heartbeat, lanes: extra.lanes },
    housekeeping: extra.housekeeping,
    checkedAt: new Date(),
  };
}

async function readDbExtras() {
  const client = await db();
  const laneKeys = new Map(JOB_LANES.map((lane) => [laneHeartbeatKey(lane), lane]));
  const [beat, laneBeats, run] = await Promise.all([
    client.appSetting.findUnique({ where: { key: WORKER_HEARTBEAT_KEY }, select: { value: true } }),
    client.appSetting.findMany({
      where: { key: { in: [...laneKeys.keys()] } },
      select: { key: true, value: true },
    }),
    client.auditEvent.findFirst({
      where: { action: HOUSEKEEPING_ACTION },
      orderBy: { createdAt: 'desc' },
      select: { createdAt: true, details: true },
    }),
  ]);
  return {
    heartbeat: (beat?.value as WorkerHeartbeat | undefined) ?? null,
    lanes: Object.fromEntries(
      laneBeats.map((b) => [laneKeys.get(b.key), b.value as unknown as WorkerHeartbeat]),
    ) as Partial<Record<JobLane, WorkerHeartbeat>>,
    housekeeping: run
      ? { at: run.createdAt, details: (run.details ?? {}) as Record<string, unknown> }
      : null,
  };
}
