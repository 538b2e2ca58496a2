import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { assertLocalUrl } from './local-url';

/**
 * Redis for integration tests: the local server, with every key of a run
 * under one prefix (`ck_it_<ms>_<rand>:`) so parallel runs never see each
 * other's queues; the prefix's keys are deleted at teardown. Pass `prefix`
 * to BullMQ (`new Queue(name, { prefix })`) and to any key you build.
 */

export function redisBaseUrl(): string {
  const url = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  assertLocalUrl(url, 'TEST_REDIS_URL');
  return url;
}

export function testRedis(): { url: string; prefix: string } {
  return { url: inject('redisUrl'), prefix: inject('redisPrefix') };
}

/** A new connection to the test Redis; close it (`quit()`) in afterAll. */
export function testRedisClient(): Redis {
  const client = new Redis(testRedis().url, { maxRetriesPerRequest: null, lazyConnect: false });
  client.on('error', () => {}); // failures surface in the commands that use it
  return client;
}

/** Deletes every key under `prefix` (SCAN, never KEYS, never FLUSHDB: others share the server). */
export async function cleanRedisPrefix(url: string, prefix: string): Promise<number> {
  if (!/^ck_it_\d+_[a-z0-9]+:$/.test(prefix)) {
    throw new Error(`refusing to delete keys under unexpected prefix "${prefix}"`);
  }
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}
