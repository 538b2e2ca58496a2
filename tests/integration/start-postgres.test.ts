import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runId } from './helpers/local-url';

/**
 * `npm start` with DATABASE_URL on a fresh, empty PostgreSQL database: the
 * app applies the migrations itself, once, even with two instances starting
 * at the same moment, and creates one first admin. With
 * MIGRATE_ON_START=false an empty database is refused with the fix named.
 * Each instance is a real process running the server's start path
 * (instrumentation.ts → lib/server/boot.ts) against its own new database.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MIGRATIONS = readdirSync(path.join(ROOT, 'prisma', 'migrations'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

const adminUrl = inject('databaseAdminUrl');
const created: string[] = [];
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ck-start-'));
// Every instance on one database holds the same keys (it refuses otherwise).
const KEYS = {
  AUTH_SECRET: randomBytes(32).toString('base64url'),
  APP_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
};

async function onAdmin<T>(fn: (c: pg.Client) => Promise<T>, url = adminUrl): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A new empty database on the test server; dropped in afterAll. */
async function freshDatabase(): Promise<string> {
  const name = `${runId()}_start`;
  await onAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  created.push(name);
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${name}`;
  return u.toString();
}

interface Started {
  child: ChildProcess;
  /** Everything it printed so far. */
  out: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  up: Promise<boolean>;
}

function start(databaseUrl: string, extra: Record<string, string> = {}): Started {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['ADMIN_EMAIL', 'ADMIN_PASSWORD', 'MIGRATE_ON_START']) delete env[k];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=react-server', 'tests/integration/start-child.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env,
        NEXT_RUNTIME: 'nodejs',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        ...KEYS,
        // Nothing listens there: these instances never touch the shared
        // Redis (boot does not wait for it), and run no worker.
        REDIS_URL: 'redis://127.0.0.1:6391',
        RUN_WORKER: 'false',
        LOG_LEVEL: 'info',
        ...extra,
      },
    },
  );
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const up = new Promise<boolean>((resolve) => {
    const t = setInterval(() => {
      if (out.includes('CHILD_UP')) resolve(true);
      else if (child.exitCode !== null || child.signalCode !== null) resolve(false);
      else return;
      clearInterval(t);
    }, 100);
  });
  return { child, out: () => out, exited, up };
}

/** The JSON log lines of one module. */
function logLines(out: string, module: string): { msg: string; level: string }[] {
  return out
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return []; // not a log line (the admin box, CHILD_UP)
      }
    })
    .filter((l) => l?.module === module);
}

async function stop(s: Started): Promise<number | null> {
  s.child.kill('SIGTERM');
  return s.exited;
}

beforeAll(() => {
  expect(MIGRATIONS.length).toBeGreaterThan(0);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const name of created) {
    await onAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('starting on PostgreSQL', () => {
  let url: string;

  it('two instances starting together on an empty database migrate it once and create one admin', async () => {
    url = await freshDatabase();
    const a = start(url);
    const b = start(url);
    const [upA, upB] = await Promise.all([a.up, b.up]);
    expect([upA, upB], `${a.out()}\n----\n${b.out()}`).toEqual([true, true]);

    // One applied everything while the other waited on the advisory lock,
    // then found nothing left to do; each said so in one line.
    const said = [a, b].map((s) => logLines(s.out(), 'migrate').map((l) => l.msg));
    const n = MIGRATIONS.length;
    expect(said.flat().sort()).toEqual(
      [
        `applied ${n} migration(s) on start; ${n} in total`,
        `database schema up to date (${n} migration(s) applied)`,
      ].sort(),
    );

    const { rows } = await onAdmin(
      (c) =>
        c.query<{ migration_name: string; finished: boolean }>(
          'SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name',
        ),
      url,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(MIGRATIONS);
    expect(rows.every((r) => r.finished)).toBe(true);

    const admins = await onAdmin(
      (c) =>
        c.query<{ email: string }>(
          `SELECT email FROM "User" WHERE 'admin'::"Role" = ANY(roles) AND NOT disabled`,
        ),
      url,
    );
    expect(admins.rows.map((r) => r.email)).toEqual(['admin@localhost']);
    // The generated password was printed by exactly one of them.
    const printed = [a, b].filter((s) => s.out().includes('first administrator created'));
    expect(printed).toHaveLength(1);

    expect(await Promise.all([stop(a), stop(b)])).toEqual([0, 0]);
  }, 240_000);

  it('with MIGRATE_ON_START=false, a migrated database starts and nothing is migrated', async () => {
    const s = start(url, { MIGRATE_ON_START: 'false' });
    expect(await s.up, s.out()).toBe(true);
    expect(logLines(s.out(), 'migrate')).toEqual([]);
    expect(await stop(s)).toBe(0);
  }, 120_000);

  it('with MIGRATE_ON_START=false, an empty database is refused, naming npm run db:migrate', async () => {
    const empty = await freshDatabase();
    const s = start(empty, { MIGRATE_ON_START: 'false' });
    expect(await s.exited, s.out()).toBe(1);
    expect(s.out()).not.toContain('CHILD_UP');
    const fatal = logLines(s.out(), 'boot').filter((l) => l.level === 'fatal');
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ code: 'migrations_pending' });
    expect(fatal[0].msg).toMatch(
      /^start failed: the database at postgresql:\/\/.+ has no schema yet \(MIGRATE_ON_START=false\): run `npm run db:migrate` first$/,
    );
    // Nothing was written to it.
    const { rows } = await onAdmin(
      (c) =>
        c.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
        ),
      empty,
    );
    expect(rows[0].n).toBe(0);
  }, 120_000);
});
