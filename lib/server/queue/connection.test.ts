import { describe, expect, it } from 'vitest';
import { MAX_RECONNECT_DELAY_MS, reconnectDelay, TimeoutError, withTimeout } from './connection';

describe('redis connection policy', () => {
  it('backs off and caps the reconnect delay, never giving up', () => {
    const delays = Array.from({ length: 50 }, (_, i) => reconnectDelay(i + 1));
    expect(delays[0]).toBeLessThan(delays[3]);
    expect(Math.max(...delays)).toBe(MAX_RECONNECT_DELAY_MS);
    // A number, never null: ioredis stops reconnecting for good on null.
    expect(delays.every((d) => typeof d === 'number' && d > 0)).toBe(true);
  });

  it('withTimeout rejects with the given code when the promise hangs', async () => {
    const t = Date.now();
    const err = await withTimeout(new Promise<never>(() => {}), 50, 'queue_add_timeout').catch(
      (e: TimeoutError) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.code).toBe('queue_add_timeout');
    expect(Date.now() - t).toBeLessThan(500);
    await expect(withTimeout(Promise.resolve(7), 50, 'x')).resolves.toBe(7);
  });
});
