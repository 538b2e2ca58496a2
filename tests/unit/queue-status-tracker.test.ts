import { describe, expect, it } from 'vitest';
import { type QueueStatus, QueueStatusTracker } from '@/lib/server/queue/status';

/**
 * The shared queue status does not flap: a Redis that was online is
 * reported offline only after two failed probes in a row, and online again
 * on the first success (issue 17: a single slow probe made /api/ready say
 * "degraded" while Redis was fine).
 */

const reading = (redis: 'online' | 'offline', waiting = 0): QueueStatus => ({
  redis,
  waiting,
  scheduled: 0,
  outboxScheduled: 0,
  outboxPending: 0,
  failed: 0,
});

function setup(results: ('online' | 'offline' | 'throw' | 'hang')[]) {
  let clock = 0;
  let probes = 0;
  const tracker = new QueueStatusTracker(
    async (previous) => {
      const r = results[probes++];
      if (r === 'throw') throw new Error('boom');
      if (r === 'hang') return new Promise<QueueStatus>(() => {});
      return r === 'online'
        ? reading('online', probes)
        : { ...reading('offline'), waiting: previous?.waiting ?? 0 };
    },
    { cacheMs: 2_000, failuresToOffline: 2 },
    () => clock,
  );
  return {
    tracker,
    probes: () => probes,
    advance(ms: number) {
      clock += ms;
    },
  };
}

describe('QueueStatusTracker', () => {
  it('says offline only after two failed probes in a row, online again after one success', async () => {
    const t = setup(['online', 'offline', 'online', 'offline', 'offline', 'online']);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push((await t.tracker.get()).redis);
      t.advance(2_000);
    }
    expect(seen).toEqual(['online', 'online', 'online', 'online', 'offline', 'online']);
  });

  it('treats a probe that throws as a failure, and takes the first reading as it is', async () => {
    const t = setup(['offline', 'throw', 'online', 'throw', 'throw']);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      seen.push((await t.tracker.get()).redis);
      t.advance(2_000);
    }
    expect(seen).toEqual(['offline', 'offline', 'online', 'online', 'offline']);
  });

  it('shares one probe within the cache time', async () => {
    const t = setup(['online', 'online']);
    await Promise.all([t.tracker.get(), t.tracker.get(), t.tracker.get()]);
    t.advance(1_999);
    await t.tracker.get();
    expect(t.probes()).toBe(1);
    t.advance(1);
    await t.tracker.get();
    expect(t.probes()).toBe(2);
  });

  it('answers the last reading when a fresh probe takes longer than the caller waits', async () => {
    const t = setup(['online', 'hang']);
    const first = await t.tracker.get();
    t.advance(2_000);
    const started = Date.now();
    const again = await t.tracker.get(50);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(again).toBe(first);
  });
});
