import { afterAll, describe, expect, inject, it } from 'vitest';
import { dbInfo, migrationStatus, pingDb } from '@/lib/server/db';
import { readMigrations } from '@/lib/server/migrate';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis, testRedisClient } from './helpers/redis';

describe('integration database (global-setup.ts)', () => {
  afterAll(closeTestDb);

  it('gives every run its own migrated database, visible to the code under test', async () => {
    const url = inject('databaseUrl');
    expect(url).toMatch(/^postgresql:\/\/[^/]*(127\.0\.0\.1|localhost)[^/]*\/ck_it_\d+_[a-z0-9]+$/);
    // config()/db() read DATABASE_URL: it must already be the run's database in the worker.
    expect(process.env.DATABASE_URL).toBe(url);
    const client = await testDb();
    const [{ current_database }] = await client.$queryRaw<{ current_database: string }[]>`
      SELECT current_database()`;
    expect(url.endsWith(`/${current_database}`)).toBe(true);
    const rows = await client.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL`;
    expect(rows.map((r) => r.migration_name)).toContain('20261202091838_init');
  });

  it('db() on Postgres answers pings and reports no pending migrations (for /api/ready)', async () => {
    expect(dbInfo()).toEqual({
      kind: 'postgres',
      location: inject('databaseUrl').replace(/:[^:@/]*@/, '@'),
    });
    expect(await pingDb()).toBe(true);
    expect(await migrationStatus()).toEqual({
      applied: readMigrations().length,
      pending: [],
    });
  });

  it('truncateAll empties the tables and keeps the migration history', async () => {
    const client = await testDb();
    await client.host.create({ data: { name: 'truncate-me' } });
    await client.appSetting.create({ data: { key: 'k', value: { a: 1 } } });
    await truncateAll();
    expect(await client.host.count()).toBe(0);
    expect(await client.appSetting.count()).toBe(0);
    const [{ n }] = await client.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM _prisma_migrations`;
    expect(n).toBeGreaterThan(0);
  });

  it('gives every run a Redis key prefix of its own', async () => {
    const { prefix } = testRedis();
    expect(prefix).toMatch(/^ck_it_\d+_[a-z0-9]+:$/);
    expect(inject('databaseUrl').endsWith(`/${prefix.slice(0, -1)}`)).toBe(true);
    const redis = testRedisClient();
    try {
      await redis.set(`${prefix}probe`, '1');
      expect(await redis.get(`${prefix}probe`)).toBe('1');
    } finally {
      redis.disconnect();
    }
  });
});
