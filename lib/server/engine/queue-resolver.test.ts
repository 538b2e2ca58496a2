import { describe, expect, it } from 'vitest';
import { RESOLVER_WAIT_MS, resolverWaitMs } from './queue-resolver';

describe('resolverWaitMs (issue 17: waits that started together must not re-read together)', () => {
  it('draws 30 s ±20 % from the random source', () => {
    expect(RESOLVER_WAIT_MS).toBe(30_000);
    expect(resolverWaitMs(() => 0)).toBe(24_000);
    expect(resolverWaitMs(() => 0.5)).toBe(30_000);
    expect(resolverWaitMs(() => 0.999)).toBe(35_988);
  });

  it('stays within the band and spreads over it', () => {
    const waits = Array.from({ length: 100 }, (_, i) => resolverWaitMs(() => i / 100));
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(24_000);
      expect(w).toBeLessThan(36_000);
    }
    expect(new Set(waits).size).toBe(100);
  });
});
