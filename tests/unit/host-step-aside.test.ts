import { describe, expect, it } from 'vitest';
import { STEP_ASIDE, stepAsideMs } from '@/lib/server/webhooks/host-slots';
import { stepAsides } from '@/lib/server/queue/worker';

/**
 * A job refused a host slot steps aside for longer each time (issue 17):
 * a fixed 250–500 ms made a backlog behind a slow host hammer Redis.
 */

describe('stepAsideMs', () => {
  const low = () => 0;
  const high = () => 1;

  it('starts at 250–500 ms and doubles to 2.5–5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 40].map((n) => stepAsideMs(n, STEP_ASIDE, low))).toEqual([
      250, 500, 1_000, 2_000, 2_500, 2_500, 2_500,
    ]);
    expect([0, 1, 2, 3, 4, 5, 40].map((n) => stepAsideMs(n, STEP_ASIDE, high))).toEqual([
      500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
  });

  it('jitters within the upper half of the ceiling', () => {
    for (let i = 0; i < 200; i++) {
      const ms = stepAsideMs(2);
      expect(ms).toBeGreaterThanOrEqual(1_000);
      expect(ms).toBeLessThanOrEqual(2_000);
    }
  });

  it('a policy with firstMs = maxMs is the old fixed delay', () => {
    const fixed = { firstMs: 500, maxMs: 500 };
    expect(stepAsideMs(0, fixed, low)).toBe(250);
    expect(stepAsideMs(9, fixed, high)).toBe(500);
  });
});

describe('stepAsides', () => {
  it('counts starts that were neither this run nor a failed try', () => {
    expect(stepAsides({ attemptsStarted: 1, attemptsMade: 0 })).toBe(0);
    expect(stepAsides({ attemptsStarted: 5, attemptsMade: 0 })).toBe(4);
    // Two failed tries and three step-asides, now in its sixth start.
    expect(stepAsides({ attemptsStarted: 6, attemptsMade: 2 })).toBe(3);
    // A job handed in without BullMQ's counter (tests calling processJob).
    expect(stepAsides({ attemptsMade: 0 })).toBe(0);
  });
});
