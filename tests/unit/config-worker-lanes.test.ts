import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';

/** WORKER_LANES: which lanes this process's worker consumes (issue 17). */

describe('WORKER_LANES', () => {
  it('is unset by default, which means every lane', () => {
    expect(parseConfig({}).WORKER_LANES).toBeUndefined();
    // docker-compose passes `WORKER_LANES=` through: empty is unset, not "none".
    expect(parseConfig({ WORKER_LANES: '' }).WORKER_LANES).toBeUndefined();
  });

  it('takes a comma-separated list, trimmed, deduplicated, in lane order', () => {
    expect(parseConfig({ WORKER_LANES: 'callbacks' }).WORKER_LANES).toEqual(['callbacks']);
    expect(parseConfig({ WORKER_LANES: ' slack , expiry,slack,' }).WORKER_LANES).toEqual([
      'expiry',
      'slack',
    ]);
  });

  it('refuses unknown lanes and an empty list, naming the variable and the bad name', () => {
    expect(() => parseConfig({ WORKER_LANES: 'callbacks,callback' })).toThrow(ConfigError);
    expect(() => parseConfig({ WORKER_LANES: 'callbacks,callback' })).toThrow(
      /WORKER_LANES: unknown lane callback;/,
    );
    expect(() => parseConfig({ WORKER_LANES: 'Expiry' })).toThrow(/WORKER_LANES:/);
    expect(() => parseConfig({ WORKER_LANES: ' , ' })).toThrow(/WORKER_LANES: must list lanes/);
  });
});

/** QUEUE_PREFIX: installations (and benchmarks) sharing a Redis keep their queues apart. */
describe('QUEUE_PREFIX', () => {
  it('is unset by default (the queues use `checkpoint`) and takes a plain name', () => {
    expect(parseConfig({}).QUEUE_PREFIX).toBeUndefined();
    expect(parseConfig({ QUEUE_PREFIX: 'ckbench-1a2b' }).QUEUE_PREFIX).toBe('ckbench-1a2b');
  });

  it('refuses key separators and spaces, naming the variable', () => {
    for (const v of ['a:b', 'a b', 'x'.repeat(65)]) {
      expect(() => parseConfig({ QUEUE_PREFIX: v })).toThrow(/QUEUE_PREFIX:/);
    }
  });
});
