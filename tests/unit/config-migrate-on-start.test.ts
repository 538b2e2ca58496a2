import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';

/** MIGRATE_ON_START: PostgreSQL is migrated at start unless it is turned off. */

const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' };

describe('MIGRATE_ON_START', () => {
  it('is on when unset or empty', () => {
    expect(parseConfig(base).MIGRATE_ON_START).toBe(true);
    expect(parseConfig({ ...base, MIGRATE_ON_START: '' }).MIGRATE_ON_START).toBe(true);
  });

  it('reads the usual spellings of off and on', () => {
    for (const off of ['false', '0', 'no', 'off']) {
      expect(parseConfig({ ...base, MIGRATE_ON_START: off }).MIGRATE_ON_START).toBe(false);
    }
    for (const on of ['true', '1', 'yes', 'on']) {
      expect(parseConfig({ ...base, MIGRATE_ON_START: on }).MIGRATE_ON_START).toBe(true);
    }
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => parseConfig({ ...base, MIGRATE_ON_START: 'later' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, MIGRATE_ON_START: 'later' })).toThrow(/MIGRATE_ON_START:/);
  });
});
