import { describe, expect, it } from 'vitest';
import {
  combineDecisions,
  evaluateWindow,
  retryAfterMinutes,
  SIGN_IN_LIMITS,
} from '@/lib/server/auth/rate-limit';

const MIN = 60_000;
const now = new Date('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('sign-in rate-limit window', () => {
  it('allows attempts below the limit', () => {
    const failures = [ago(1 * MIN), ago(2 * MIN), ago(3 * MIN), ago(4 * MIN)];
    expect(evaluateWindow(failures, 5, 15 * MIN, now)).toEqual({ allowed: true });
  });

  it('refuses at the limit until the oldest counted failure leaves the window', () => {
    const failures = [ago(1 * MIN), ago(2 * MIN), ago(3 * MIN), ago(4 * MIN), ago(10 * MIN)];
    expect(evaluateWindow(failures, 5, 15 * MIN, now)).toEqual({
      allowed: false,
      retryAfterMs: 5 * MIN,
    });
  });

  it('with more failures than the limit, waits for enough of them to expire', () => {
    // 6 failures, limit 5: allowed again once 2 have left, i.e. when the
    // second oldest (9 min ago) expires, in 6 min.
    const failures = [1, 2, 3, 4, 9, 12].map((m) => ago(m * MIN));
    expect(evaluateWindow(failures, 5, 15 * MIN, now)).toEqual({
      allowed: false,
      retryAfterMs: 6 * MIN,
    });
  });

  it('ignores failures older than the window and ones in the future', () => {
    const failures = [ago(15 * MIN), ago(16 * MIN), ago(60 * MIN), ago(-MIN), ago(MIN)];
    expect(evaluateWindow(failures, 2, 15 * MIN, now)).toEqual({ allowed: true });
  });

  it('is order-independent', () => {
    const failures = [ago(10 * MIN), ago(1 * MIN), ago(5 * MIN)];
    expect(evaluateWindow(failures, 3, 15 * MIN, now)).toEqual(
      evaluateWindow([...failures].reverse(), 3, 15 * MIN, now),
    );
  });

  it('combines per-email and per-IP decisions: the longest refusal wins', () => {
    expect(combineDecisions({ allowed: true }, { allowed: true })).toEqual({ allowed: true });
    expect(combineDecisions({ allowed: false, retryAfterMs: 2 * MIN }, { allowed: true })).toEqual({
      allowed: false,
      retryAfterMs: 2 * MIN,
    });
    expect(
      combineDecisions(
        { allowed: false, retryAfterMs: 2 * MIN },
        { allowed: false, retryAfterMs: 9 * MIN },
      ),
    ).toEqual({ allowed: false, retryAfterMs: 9 * MIN });
  });

  it('rounds the wait up to whole minutes, never 0', () => {
    expect(retryAfterMinutes(1)).toBe(1);
    expect(retryAfterMinutes(MIN)).toBe(1);
    expect(retryAfterMinutes(MIN + 1)).toBe(2);
  });

  it('uses 5 per email and 20 per IP over 15 minutes', () => {
    expect(SIGN_IN_LIMITS).toEqual({ windowMs: 15 * MIN, perEmail: 5, perIp: 20 });
  });
});
