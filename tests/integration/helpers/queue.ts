import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createLogger } from '@/lib/server/logger';
import { obliterateQueues, type QueueTarget } from '@/lib/server/queue/queues';
import { testRedis } from './redis';

/**
 * Per-test queues: a fresh queue name under the run's Redis prefix, so files
 * and tests never consume each other's jobs. `obliterateTarget` removes it.
 */

/** Nothing listens here: the "Redis is down" address. */
export const CLOSED_REDIS_URL = 'redis://127.0.0.1:6390';

export function testQueueTarget(redisUrl = testRedis().url): QueueTarget {
  return {
    redisUrl,
    queueName: `q-${randomBytes(4).toString('hex')}`,
    prefix: `${testRedis().prefix}bull`,
  };
}

/** Removes the target's queues: every lane and the pre-lane one (on the test Redis, whatever URL the target names). */
export function obliterateTarget(target: QueueTarget): Promise<void> {
  return obliterateQueues(target, testRedis().url);
}

/** A logger whose JSON lines land in `lines` (to assert on what was logged). */
export function capturingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  return { log, lines };
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  timeoutMs = 15_000,
  stepMs = 50,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`waitFor: condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** A unique marker for the rows of one test. */
export function uniqueTag(label: string): string {
  return `${label}.${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}
