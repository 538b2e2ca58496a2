import { describe, expect, it } from 'vitest';
import { formatWait, signInMessage } from '@/app/sign-in/messages';
import {
  backoffMs,
  clientKey,
  combineDecisions,
  evaluateBackoff,
  retryAfterSeconds,
  SIGN_IN_LIMITS,
} from '@/lib/server/auth/rate-limit';

const S = 1000;
const MIN = 60 * S;
const now = new Date('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('sign-in back-off', () => {
  it('waits nothing below the threshold, then 1 s, 2 s, 4 s … capped at 15 min', () => {
    expect([0, 4].map((n) => backoffMs(n, 5))).toEqual([0, 0]);
    expect([5, 6, 7, 8, 9].map((n) => backoffMs(n, 5))).toEqual([S, 2 * S, 4 * S, 8 * S, 16 * S]);
    expect(backoffMs(14, 5)).toBe(512 * S);
    expect(backoffMs(15, 5)).toBe(15 * MIN);
    expect(backoffMs(10_000, 5)).toBe(15 * MIN);
  });

  it('counts the wait from the latest failure, in any order', () => {
    const failures = [ago(10 * S), ago(1 * S), ago(20 * S), ago(30 * S), ago(40 * S), ago(50 * S)];
    // 6 failures at threshold 5: 2 s after the latest (1 s ago).
    expect(evaluateBackoff(failures, 5, now, 'pair')).toEqual({
      allowed: false,
      retryAfterMs: S,
      scope: 'pair',
    });
    expect(evaluateBackoff([...failures].reverse(), 5, now, 'pair')).toEqual(
      evaluateBackoff(failures, 5, now, 'pair'),
    );
  });

  it('allows again once the wait is over', () => {
    const failures = [1, 2, 3, 4, 5].map((s) => ago(s * S));
    expect(evaluateBackoff(failures, 5, now, 'client')).toEqual({ allowed: true });
    expect(evaluateBackoff(failures.slice(0, 4), 5, now, 'client')).toEqual({ allowed: true });
  });

  it('combines scopes: the longest refusal wins and keeps its scope', () => {
    expect(combineDecisions({ allowed: true }, { allowed: true })).toEqual({ allowed: true });
    expect(
      combineDecisions(
        { allowed: false, retryAfterMs: 2 * MIN, scope: 'pair' },
        { allowed: true },
        { allowed: false, retryAfterMs: 9 * MIN, scope: 'client' },
      ),
    ).toEqual({ allowed: false, retryAfterMs: 9 * MIN, scope: 'client' });
  });

  it('keys IPv4 clients by address and IPv6 clients by their /64', () => {
    expect(clientKey('198.51.100.7')).toBe('198.51.100.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(null)).toBe('unknown');
  });

  it('rounds waits up to whole seconds, never 0', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(S)).toBe(1);
    expect(retryAfterSeconds(S + 1)).toBe(2);
  });

  it('uses 5 per pair, 20 per client, 10 per account, 1 s to 15 min over a day', () => {
    expect(SIGN_IN_LIMITS).toEqual({
      windowMs: 24 * 60 * MIN,
      pairThreshold: 5,
      clientThreshold: 20,
      accountThreshold: 10,
      unfamiliarPairThreshold: 1,
      baseDelayMs: S,
      maxDelayMs: 15 * MIN,
    });
  });
});

describe('sign-in page wait message', () => {
  it('says seconds under a minute and minutes from a minute on', () => {
    expect(formatWait(0)).toBe('1 s');
    expect(formatWait(1)).toBe('1 s');
    expect(formatWait(59)).toBe('59 s');
    expect(formatWait(60)).toBe('1 min');
    expect(formatWait(61)).toBe('2 min');
    expect(formatWait(900)).toBe('15 min');
    expect(signInMessage('rate_limited', 4)).toBe('Too many sign-in attempts. Try again in 4 s.');
    expect(signInMessage('rate_limited', 600)).toBe(
      'Too many sign-in attempts. Try again in 10 min.',
    );
  });
});
