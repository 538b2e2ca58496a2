import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';

/** The relay's check for jobs Redis lost: on by default, both periods configurable and bounded. */

describe('OUTBOX_RECONCILE_INTERVAL_MS and OUTBOX_RECONCILE_LEASE_MS', () => {
  it('default to 30 s each', () => {
    const cfg = parseConfig({});
    expect(cfg.OUTBOX_RECONCILE_INTERVAL_MS).toBe(30_000);
    expect(cfg.OUTBOX_RECONCILE_LEASE_MS).toBe(30_000);
  });

  it('take other values; an interval of 0 turns the check off', () => {
    const cfg = parseConfig({
      OUTBOX_RECONCILE_INTERVAL_MS: '0',
      OUTBOX_RECONCILE_LEASE_MS: '5000',
    });
    expect(cfg.OUTBOX_RECONCILE_INTERVAL_MS).toBe(0);
    expect(cfg.OUTBOX_RECONCILE_LEASE_MS).toBe(5_000);
  });

  it('refuse negative, fractional, too short or non-numeric values, naming the variable', () => {
    for (const [name, value] of [
      ['OUTBOX_RECONCILE_INTERVAL_MS', '-1'],
      ['OUTBOX_RECONCILE_INTERVAL_MS', '1.5'],
      ['OUTBOX_RECONCILE_INTERVAL_MS', 'soon'],
      ['OUTBOX_RECONCILE_LEASE_MS', '10'],
    ]) {
      expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
    }
  });
});
