import { PRIORITY_LIMIT } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { MAX_JOB_PRIORITY } from '@/lib/server/queue/queues';
import { HostWindowCounter } from '@/lib/server/queue/relay';

/** The relay's per-host fan-out priority (issue 17 item 3): 1 + the host's adds in the window. */
describe('HostWindowCounter', () => {
  it("numbers a host's burst 1, 2, 3, … and another host's first add 1", () => {
    const c = new HostWindowCounter(30_000, 30);
    const t = 1_000_000;
    expect([c.add('a', t), c.add('a', t), c.add('a', t + 5)]).toEqual([1, 2, 3]);
    expect(c.add('b', t + 6)).toBe(1);
    expect(c.add('a', t + 7)).toBe(4);
    expect(c.count('a', t + 7)).toBe(4);
  });

  it('forgets adds older than the window (to one bucket)', () => {
    const c = new HostWindowCounter(30_000, 30);
    const t = 2_000_000;
    for (let i = 0; i < 10; i++) c.add('a', t);
    for (let i = 0; i < 5; i++) c.add('a', t + 20_000);
    // 29 s on: all 15 still count.
    expect(c.count('a', t + 29_000)).toBe(15);
    // 31 s on: the first 10 have left, the later 5 stay.
    expect(c.add('a', t + 31_000)).toBe(6);
    // 52 s on: only the one just added remains.
    expect(c.count('a', t + 52_000)).toBe(1);
  });

  it('drops idle hosts on the sweep', () => {
    const c = new HostWindowCounter(1_000, 10);
    const t = 3_000_000;
    c.add('a', t);
    c.add('b', t);
    expect(c.size).toBe(2);
    c.add('c', t + 5_000);
    expect(c.size).toBe(1);
  });

  it("caps at BullMQ's largest priority", () => {
    const c = new HostWindowCounter(30_000, 30, 3);
    const t = 4_000_000;
    expect([1, 2, 3, 4, 5].map(() => c.add('a', t))).toEqual([1, 2, 3, 3, 3]);
    // The default cap is BullMQ's own limit: a larger priority makes `add` throw.
    expect(MAX_JOB_PRIORITY).toBe(PRIORITY_LIMIT);
  });
});
