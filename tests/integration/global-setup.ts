import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrateTarget } from '@/lib/server/db/migrate-target';
import { assertLocalUrl, runId } from './helpers/local-url';
import { cleanRedisPrefix, redisBaseUrl } from './helpers/redis';

/**
 * One fresh PostgreSQL database per run (`ck_it_<ms>_<rand>`), migrated with
 * the project's own migrator, dropped at the end. Test files get its URL
 * through `inject('databaseUrl')` and as DATABASE_URL (set here, before
 * the workers start, so `config()` and `db()` in the code under test see it).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The server's maintenance database, for creating and dropping databases. */
    databaseAdminUrl: string;
    redisUrl: string;
    redisPrefix: string;
  }
}

const DEFAULT_BASE = 'postgresql://postgres@127.0.0.1:5432/postgres';
/** Databases left by a crashed run are dropped once they are this old. */
const ORPHAN_AGE_MS = 6 * 3600_000;

async function admin<T>(baseUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function dropOrphans(c: pg.Client): Promise<void> {
  const { rows } = await c.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'ck\\_it\\_%'",
  );
  for (const { datname } of rows) {
    const ms = Number(/^ck_it_(\d+)_/.exec(datname)?.[1]);
    if (Number.isFinite(ms) && Date.now() - ms > ORPHAN_AGE_MS) {
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
    }
  }
}

export default async function setup(project: TestProject) {
  const base = process.env.TEST_DATABASE_URL || DEFAULT_BASE;
  const baseUrl = assertLocalUrl(base, 'TEST_DATABASE_URL');
  const id = runId();

  await admin(base, async (c) => {
    await dropOrphans(c);
    await c.query(`CREATE DATABASE "${id}"`);
  });
  const url = new URL(baseUrl);
  url.pathname = `/${id}`;
  const databaseUrl = url.toString();
  try {
    await migrateTarget({ kind: 'postgres', url: databaseUrl });
  } catch (err) {
    await admin(base, (c) => c.query(`DROP DATABASE IF EXISTS "${id}" WITH (FORCE)`));
    throw err;
  }

  const redisUrl = redisBaseUrl();
  const redisPrefix = `${id}:`;
  project.provide('databaseUrl', databaseUrl);
  project.provide('databaseAdminUrl', base);
  project.provide('redisUrl', redisUrl);
  project.provide('redisPrefix', redisPrefix);
  process.env.DATABASE_URL = databaseUrl;
  // Required with DATABASE_URL (auth/secret.ts : sharedSecret): one pair per
  // run, inherited by the worker processes tests start, so all of them agree.
  process.env.APP_ENCRYPTION_KEY ||= randomBytes(36).toString('base64url');
  process.env.AUTH_SECRET ||= randomBytes(36).toString('base64url');
  process.env.REDIS_URL = redisUrl;
  process.env.TEST_REDIS_PREFIX = redisPrefix;
  // Nothing a test writes lands in the checkout's .data/ (the developer's
  // embedded database, keys and tree-head file): DATA_DIR and the tree-head
  // file live in a directory of this run (per file: helpers/file-setup.ts).
  const scratch = mkdtempSync(join(tmpdir(), `${id}-`));
  process.env.TEST_RUN_DIR = scratch;
  process.env.DATA_DIR = join(scratch, 'data');
  process.env.TREE_HEAD_FILE = join(scratch, 'tree-heads.jsonl');

  return async () => {
    rmSync(scratch, { recursive: true, force: true });
    await admin(base, (c) => c.query(`DROP DATABASE IF EXISTS "${id}" WITH (FORCE)`));
    await cleanRedisPrefix(redisUrl, redisPrefix).catch(() => {});
  };
}
