import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';
import { db } from '@/lib/server/db';
import { moduleLogger } from '@/lib/server/logger';
import { appendAll } from './append';
import { issueTreeHead } from './tree-head';

/**
 * The log's background loop, in every process that runs the worker (the
 * worker process, or the app with RUN_WORKER): every LOG_APPEND_INTERVAL_MS
 * it appends what ingest and decisions stored since, then signs a tree head
 * if there are new leaves and the newest head is older than
 * TREE_HEAD_INTERVAL_MS. A plain timer rather than a queued job or a Redis
 * nudge: it needs only the database (the log keeps up while Redis is down),
 * an idle pass is three index reads, and a record is in the log about one
 * interval after it was stored. Several loops (instances) are safe: the
 * appender is serialized by an advisory lock (lock.ts) and a size gets one
 * head. Ingest never waits for it.
 */

export interface TransparencyLoop {
  /** Stops the loop; resolves once a running pass has finished. */
  stop(): Promise<void>;
}

export interface TransparencyLoopOptions {
  intervalMs?: number;
  treeHeadIntervalMs?: number;
  db?: () => Promise<PrismaClient>;
}

const log = moduleLogger('transparency-log');

export function startTransparencyLoop(opts: TransparencyLoopOptions = {}): TransparencyLoop {
  const intervalMs = opts.intervalMs ?? config().LOG_APPEND_INTERVAL_MS;
  const treeHeadIntervalMs = opts.treeHeadIntervalMs ?? config().TREE_HEAD_INTERVAL_MS;
  const getDb = opts.db ?? db;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let running: Promise<void> = Promise.resolve();

  async function pass(): Promise<void> {
    const prisma = await getDb();
    const { appended, size } = await appendAll(prisma);
    const head = await issueTreeHead(prisma, { minIntervalMs: treeHeadIntervalMs });
    if (appended > 0) log.debug({ appended, size, headSize: head?.size }, 'log appended');
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass()
        .then(() => {
          if (failures > 0) log.info({ failures }, 'transparency log: database reachable again');
          failures = 0;
        })
        .catch((err) => {
          // Once per outage; whatever was pending is appended on a later pass.
          if (failures++ === 0) {
            log.warn(
              { err: err instanceof Error ? err.message : String(err) },
              'transparency log: append failed, retrying',
            );
          }
        })
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

const g = globalThis as unknown as { __checkpointTransparencyLoop?: TransparencyLoop };

/** Starts this process's loop once. */
export function ensureTransparencyLoop(): void {
  g.__checkpointTransparencyLoop ??= startTransparencyLoop();
}

export async function stopTransparencyLoop(): Promise<void> {
  const loop = g.__checkpointTransparencyLoop;
  g.__checkpointTransparencyLoop = undefined;
  await loop?.stop();
}
