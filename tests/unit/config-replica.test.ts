import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';

/** DATABASE_REPLICA_URL: optional, PostgreSQL only, and only beside DATABASE_URL. */

const primary = 'postgresql://app@db.internal:5432/checkpoint';

describe('DATABASE_REPLICA_URL', () => {
  it('is unset by default', () => {
    expect(parseConfig({ DATABASE_URL: primary }).DATABASE_REPLICA_URL).toBeUndefined();
  });

  it('takes a PostgreSQL URL beside DATABASE_URL', () => {
    const replica = 'postgresql://app@replica.internal:5432/checkpoint';
    const cfg = parseConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URL: replica });
    expect(cfg.DATABASE_REPLICA_URL).toBe(replica);
  });

  it('is refused without DATABASE_URL: the embedded database has no replicas', () => {
    const env = { DATABASE_REPLICA_URL: 'postgresql://app@replica.internal/checkpoint' };
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(/DATABASE_REPLICA_URL: needs DATABASE_URL/);
  });

  it('is refused when it is not a PostgreSQL URL', () => {
    const env = { DATABASE_URL: primary, DATABASE_REPLICA_URL: 'mysql://replica/checkpoint' };
    expect(() => parseConfig(env)).toThrow(/DATABASE_REPLICA_URL:/);
  });
});
