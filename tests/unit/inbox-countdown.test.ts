import { describe, expect, it } from 'vitest';
import { formatRemaining, urgency } from '@/app/components/approvals/countdown';

describe('the queue countdown', () => {
  it('is precise near the deadline and calm far from it', () => {
    expect(formatRemaining(4 * 60_000 + 5_000)).toBe('4:05');
    expect(formatRemaining(59_999)).toBe('0:59');
    expect(formatRemaining(72 * 60_000)).toBe('1 h 12 min');
    expect(formatRemaining(51 * 3_600_000)).toBe('2 d 3 h');
    expect(formatRemaining(0)).toBe('deadline passed');
    expect(formatRemaining(-5_000)).toBe('deadline passed');
  });
});

describe('urgency is relative to the ticket lifetime (issue 14)', () => {
  const min = 60_000;
  it('a long ticket turns amber in its last 5 minutes and red in its last one', () => {
    expect(urgency(6 * min, 60 * min)).toBe('calm');
    expect(urgency(5 * min, 60 * min)).toBe('urgent');
    expect(urgency(min, 60 * min)).toBe('critical');
  });
  it('a 5-minute ticket is not urgent from birth: amber in its last quarter, red in its last tenth', () => {
    expect(urgency(5 * min, 5 * min)).toBe('calm');
    expect(urgency(4 * min, 5 * min)).toBe('calm');
    expect(urgency(75_000, 5 * min)).toBe('urgent');
    expect(urgency(30_000, 5 * min)).toBe('critical');
  });
  it('without a lifetime the absolute thresholds hold', () => {
    expect(urgency(5 * min, null)).toBe('urgent');
    expect(urgency(2 * min, null)).toBe('urgent');
    expect(urgency(59_000, null)).toBe('critical');
  });
});
