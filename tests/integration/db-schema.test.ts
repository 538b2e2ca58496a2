import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgExecutor, pgliteExecutor } from '@/lib/server/db/executors';
import { applyMigrations, readMigrations } from '@/lib/server/migrate';
import { type ScratchDatabase, scratchDatabase } from './helpers/db';
import {
  openSchemaEngine,
  pgAdapterFactory,
  type SchemaEngineHandle,
} from './helpers/schema-engine';

/**
 * The migrations and schema.prisma describe the same database: after our
 * migrator ran, Prisma's own schema engine finds nothing to change, and
 * `prisma migrate deploy` would find nothing to apply.
 */

const schemaPath = path.resolve('prisma/schema.prisma');
const migrationsDir = path.resolve('prisma/migrations');
const schema = readFileSync(schemaPath, 'utf8');

async function withPg<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

describe('schema equivalence on PostgreSQL', () => {
  let scratch: ScratchDatabase;
  let engine: SchemaEngineHandle;

  beforeAll(async () => {
    scratch = await scratchDatabase('schema');
    await withPg(scratch.url, (c) => applyMigrations(pgExecutor(c)));
    engine = await openSchemaEngine(pgAdapterFactory(scratch.url), schemaPath);
  });
  afterAll(async () => {
    engine?.close();
    await scratch?.drop();
  });

  it('applying the migrations yields exactly the schema schema.prisma describes', async () => {
    const diff = await engine.diffDatabaseToSchema(schema);
    expect(diff.script).not.toMatch(/ALTER|CREATE|DROP/);
    expect(diff.empty).toBe(true);
  });

  it('the diff notices a schema that asks for more than the migrations made', async () => {
    const extra = schema.replace(/(model User \{\n\s+id[^\n]*\n)/, '$1  nickname     String?\n');
    expect(extra).not.toBe(schema);
    const diff = await engine.diffDatabaseToSchema(extra);
    expect(diff.empty).toBe(false);
    expect(diff.script).toContain('ALTER TABLE "User" ADD COLUMN');
    expect(diff.script).toContain('"nickname" TEXT');
  });

  it('the diff notices a database that drifted from the schema', async () => {
    await withPg(scratch.url, (c) => c.query('DROP INDEX "User_email_key"'));
    try {
      const diff = await engine.diffDatabaseToSchema(schema);
      expect(diff.empty).toBe(false);
      expect(diff.script).toContain('CREATE UNIQUE INDEX "User_email_key"');
    } finally {
      await withPg(scratch.url, (c) =>
        c.query('CREATE UNIQUE INDEX "User_email_key" ON "User"("email")'),
      );
    }
  });

  it('Prisma reads our _prisma_migrations rows as applied (migrate deploy would do nothing)', async () => {
    expect(await engine.pendingMigrations(migrationsDir)).toEqual([]);
  });

  it('and an unmigrated database as behind by every migration (the check can fail)', async () => {
    const empty = await scratchDatabase('schema_empty');
    const other = await openSchemaEngine(pgAdapterFactory(empty.url), schemaPath);
    try {
      await withPg(empty.url, (c) =>
        c.query(
          'CREATE TABLE _prisma_migrations (id VARCHAR(36) PRIMARY KEY NOT NULL, checksum VARCHAR(64) NOT NULL, finished_at TIMESTAMPTZ, migration_name VARCHAR(255) NOT NULL, logs TEXT, rolled_back_at TIMESTAMPTZ, started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0)',
        ),
      );
      expect(await other.pendingMigrations(migrationsDir)).toEqual(
        readMigrations(migrationsDir).map((m) => m.name),
      );
    } finally {
      other.close();
      await empty.drop();
    }
  });
});

describe('schema equivalence on embedded PGlite', () => {
  it('the same migrations give PGlite the same schema, and running them again changes nothing', async () => {
    const db = await PGlite.create();
    try {
      const first = await applyMigrations(pgliteExecutor(db));
      expect(first.applied).toEqual(readMigrations().map((m) => m.name));
      const second = await applyMigrations(pgliteExecutor(db));
      expect(second.applied).toEqual([]);
      const engine = await openSchemaEngine(new PrismaPGlite(db), schemaPath);
      try {
        const diff = await engine.diffDatabaseToSchema(schema);
        expect(diff.empty).toBe(true);
        expect(await engine.pendingMigrations(migrationsDir)).toEqual([]);
      } finally {
        engine.close();
      }
    } finally {
      await db.close();
    }
  });
});
