import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration';

describe('host timeout durations', () => {
  it('reads units, compound durations and bare minutes', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration(' 15m ')).toBe(900_000);
    expect(parseDuration('15 min')).toBe(900_000);
    expect(parseDuration('1h 30m')).toBe(5_400_000);
    expect(parseDuration('7D')).toBe(7 * 86_400_000);
    expect(parseDuration('20')).toBe(1_200_000);
  });

  it('refuses what it cannot read instead of guessing', () => {
    for (const bad of ['', 'soon', '1.5h', '-5m', '5 m x', 'h', '1w', '12345678m']) {
      expect(parseDuration(bad), bad).toBeNull();
    }
  });

  it('formats stored milliseconds back into what parses to the same value', () => {
    for (const ms of [10_000, 90_000, 900_000, 5_400_000, 86_400_000, 7 * 86_400_000 - 1000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
    expect(formatDuration(5_400_000)).toBe('1h 30m');
  });
});
