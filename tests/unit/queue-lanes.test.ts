import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, workerConcurrency } from '@/lib/server/config';
import {
  DEFAULT_LANE_CONCURRENCY,
  JOB_LANES,
  type JobName,
  jobDefinitions,
  laneOf,
} from '@/lib/server/jobs/definitions';
import { laneQueueName } from '@/lib/server/queue/queues';
import { laneConcurrency } from '@/lib/server/queue/worker';

/** Issue 17 item 3: every kind of job runs in its own lane, with its own slots. */

describe('job lanes', () => {
  it('put each job kind in the lane the issue names', () => {
    const expected: Record<JobName, string> = {
      'approvals.expire': 'expiry',
      'approvals.created': 'fanout',
      'approvals.resolved': 'fanout',
      'webhooks.deliver': 'callbacks',
      'webhooks.resolve': 'resolver',
      'slack.post': 'slack',
      'slack.update': 'slack',
      'housekeeping.run': 'maintenance',
      'records.retention': 'maintenance',
      'audit.ping': 'maintenance',
      'log.verify': 'maintenance',
      'witness.notify': 'callbacks',
    };
    expect(Object.keys(jobDefinitions).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, lane] of Object.entries(expected)) expect(laneOf(name)).toBe(lane);
  });

  it('send a name no definition knows to maintenance (where the worker drops it)', () => {
    expect(laneOf('no.such.job')).toBe('maintenance');
    expect(laneOf('__proto__')).toBe('maintenance');
  });

  it('name each lane queue after the base name; the base name stays the pre-lane queue', () => {
    expect(laneQueueName('jobs', 'callbacks')).toBe('jobs-callbacks');
    const names = JOB_LANES.map((l) => laneQueueName('jobs', l));
    expect(new Set(names).size).toBe(JOB_LANES.length);
    expect(names).not.toContain('jobs');
    // BullMQ keys are `<prefix>:<name>:…`: a colon in a name would break them.
    for (const n of names) expect(n).not.toContain(':');
  });

  it('take slots from the defaults, a number for all, or per lane', () => {
    expect(laneConcurrency()).toEqual(DEFAULT_LANE_CONCURRENCY);
    expect(Object.values(laneConcurrency(3))).toEqual(JOB_LANES.map(() => 3));
    expect(laneConcurrency({ callbacks: 16 })).toEqual({
      ...DEFAULT_LANE_CONCURRENCY,
      callbacks: 16,
    });
  });
});

describe('WORKER_CONCURRENCY_<LANE>, WEBHOOK_HOST_CONCURRENCY, WEBHOOK_SLOW_MS', () => {
  it('default to the lane defaults, 2 calls per host and 2000 ms', () => {
    const cfg = parseConfig({});
    expect(workerConcurrency(cfg)).toEqual({
      expiry: 8,
      fanout: 4,
      callbacks: 8,
      resolver: 4,
      slack: 2,
      maintenance: 1,
    });
    expect(cfg.WEBHOOK_HOST_CONCURRENCY).toBe(2);
    expect(cfg.WEBHOOK_SLOW_MS).toBe(2_000);
  });

  it('take other values per lane', () => {
    const cfg = parseConfig({
      WORKER_CONCURRENCY_CALLBACKS: '32',
      WORKER_CONCURRENCY_MAINTENANCE: '2',
      WEBHOOK_HOST_CONCURRENCY: '5',
      WEBHOOK_SLOW_MS: '750',
    });
    expect(workerConcurrency(cfg)).toMatchObject({ callbacks: 32, maintenance: 2, expiry: 8 });
    expect(cfg.WEBHOOK_HOST_CONCURRENCY).toBe(5);
    expect(cfg.WEBHOOK_SLOW_MS).toBe(750);
  });

  it('refuse zero, negative, fractional or non-numeric values, naming the variable', () => {
    for (const [name, value] of [
      ['WORKER_CONCURRENCY_EXPIRY', '0'],
      ['WORKER_CONCURRENCY_SLACK', '-1'],
      ['WORKER_CONCURRENCY_RESOLVER', '1.5'],
      ['WORKER_CONCURRENCY_FANOUT', 'many'],
      ['WEBHOOK_HOST_CONCURRENCY', '0'],
      ['WEBHOOK_SLOW_MS', '0'],
    ]) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
    }
  });
});
