import { describe, expect, it } from 'vitest';
import { formatRemaining } from '@/app/components/approvals/countdown';

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
