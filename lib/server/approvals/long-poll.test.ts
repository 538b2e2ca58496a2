import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/api-error';
import { parseWaitSeconds } from './long-poll';

describe('?wait= of the long-poll', () => {
  it('is whole seconds, absent means at once, and is capped at 30 s', () => {
    expect(parseWaitSeconds(null)).toBe(0);
    expect(parseWaitSeconds('')).toBe(0);
    expect(parseWaitSeconds('7')).toBe(7);
    expect(parseWaitSeconds('30')).toBe(30);
    expect(parseWaitSeconds('90')).toBe(30);
  });

  it.each(['-1', '1.5', 'ten', '1e3', ' 5'])('refuses %j with 400 wait_invalid', (raw) => {
    let err: unknown;
    try {
      parseWaitSeconds(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).status, (err as ApiError).code]).toEqual([400, 'wait_invalid']);
  });
});
