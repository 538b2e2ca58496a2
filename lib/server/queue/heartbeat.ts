import 'server-only';
import os from 'node:os';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { JobLane } from '../jobs/definitions';

/**
 * The worker's heartbeat, shown on /status: an AppSetting row rewritten
 * every few seconds by each worker process (./worker.ts).
 */

/** AppSetting key of the worker heartbeat shown on /status (the last worker to write). */
export const WORKER_HEARTBEAT_KEY = 'worker.heartbeat';

/**
 * AppSetting key of a lane's heartbeat: the last worker consuming it. With
 * WORKER_LANES split over processes, one key would only show whichever
 * wrote last; per lane, /status shows a lane that nobody consumes.
 */
export function laneHeartbeatKey(lane: JobLane): string {
  return `${WORKER_HEARTBEAT_KEY}.lane.${lane}`;
}

export interface WorkerHeartbeat {
  at: string;
  host: string;
  pid: number;
  queue: string;
  /** The lanes this process consumes (WORKER_LANES); absent in heartbeats of versions before it. */
  lanes?: JobLane[];
  /** Whether it also drains the pre-lane queue. */
  drainsLegacy?: boolean;
}

/** Writes the process's heartbeat and each of its lanes'. */
export async function writeHeartbeat(
  db: PrismaClient,
  queue: string,
  lanes: JobLane[],
  drainsLegacy: boolean,
): Promise<void> {
  const value: WorkerHeartbeat = {
    at: new Date().toISOString(),
    host: os.hostname(),
    pid: process.pid,
    queue,
    lanes,
    drainsLegacy,
  };
  const keys = [WORKER_HEARTBEAT_KEY, ...lanes.map(laneHeartbeatKey)];
  await Promise.all(
    keys.map((key) =>
      db.appSetting.upsert({
        where: { key },
        create: { key, value: { ...value } },
        update: { value: { ...value } },
      }),
    ),
  );
}
