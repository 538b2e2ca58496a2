import 'server-only';
import { Redis } from 'ioredis';
import { type Logger, moduleLogger } from '../logger';

/**
 * Redis connections for BullMQ. With Redis unreachable `queue.add()` would
 * wait forever: producers fail fast and the work stays in the outbox.
 * Producer and worker never share a connection: a worker's blocking reads would stall the
 * producer's `add`, and a producer must fail fast while the worker may wait.
 */

export type RedisRole = 'producer' | 'worker';

/** Reconnect delay grows to this cap and then stays; the client never gives up. */
export const MAX_RECONNECT_DELAY_MS = 5_000;

export function reconnectDelay(times: number): number {
  return Math.min(250 * 2 ** Math.min(times, 10), MAX_RECONNECT_DELAY_MS);
}

/**
 * A new connection. Errors are logged (without the URL's password) at most
 * once per outage so an unreachable Redis doesn't flood the log every retry.
 */
export function createRedisConnection(
  url: string,
  role: RedisRole,
  logger: Logger = moduleLogger('redis'),
): Redis {
  const redis = new Redis(url, {
    // BullMQ requires null: its blocking commands must survive reconnects.
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
    connectTimeout: 2_000,
    // A producer with Redis gone must reject at once (the work stays in the
    // outbox) instead of parking commands until Redis returns; the worker
    // may park, nobody waits on it.
    enableOfflineQueue: role === 'worker',
    connectionName: `checkpoint-${role}`,
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (err: Error & { code?: string }) => {
    if (down) return;
    down = true;
    logger.warn({ role, code: err.code, err: err.message }, 'redis connection error');
  });
  redis.on('ready', () => {
    if (down) logger.info({ role }, 'redis connection restored');
    down = false;
  });
  return redis;
}

/** Closes a connection without throwing (shutdown must always complete). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await withTimeout(redis.quit(), 1_000, 'redis_quit_timeout');
  } catch {
    redis.disconnect();
  }
}

export class TimeoutError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** Rejects with TimeoutError(code) if `p` has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, code: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(code)), ms);
  });
  // The losing promise may still reject later; keep that from surfacing as an
  // unhandled rejection.
  p.catch(() => {});
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
