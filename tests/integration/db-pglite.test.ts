import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, db, dbInfo, migrationStatus, pingDb } from '@/lib/server/db';
import { lockFileFor } from '@/lib/server/db/data-dir-lock';
import { migrateTarget } from '@/lib/server/db/migrate-target';
import { openDatabase } from '@/lib/server/db/open';
import { readMigrations } from '@/lib/server/migrate';

/**
 * The embedded database: db() on PGlite in DATA_DIR keeps its data across
 * restarts, and one process per directory, always: a second opener has
 * left a directory unrecoverable.
 */

const names = readMigrations().map((m) => m.name);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ck-pglite-'));
const dir = path.join(dataDir, 'pglite');
const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Before the first config() call in this file: this file is about the embedded database.
  await closeDb();
  delete process.env.DATABASE_URL;
  process.env.DATA_DIR = dataDir;
});
afterAll(async () => {
  await closeDb();
  for (const c of children) c.kill('SIGKILL');
  Object.assign(process.env, saved);
  if (saved.DATA_DIR === undefined) delete process.env.DATA_DIR;
  rmSync(dataDir, { recursive: true, force: true });
});

const migrateCli = () =>
  spawnSync('npm', ['run', '--silent', 'db:migrate'], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
    timeout: 60_000,
  });

function startHolder(): Promise<ChildProcess> {
  // One process (no npx/tsx wrapper): the pid we kill is the one holding the lock.
  const child = spawn(
    process.execPath,
    [
      '--conditions=react-server',
      '--import',
      'tsx',
      'tests/integration/helpers/pglite-holder.ts',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      if (String(d).includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
  });
}

describe('db() on embedded PGlite', () => {
  it('creates and migrates DATA_DIR/pglite on first use, and says where it is', async () => {
    expect(dbInfo()).toEqual({ kind: 'pglite', location: dir });
    const client = await db();
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(await client.host.count()).toBe(0);
    expect(await migrationStatus()).toEqual({ applied: names.length, pending: [] });
    expect(await pingDb()).toBe(true);
    expect(await db()).toBe(client); // one client per process
  });

  it('keeps data written through db() across closing and reopening the directory', async () => {
    const host = await (await db()).host.create({
      data: { name: 'survivor', redactionPaths: ['$target.secret'] },
    });
    await closeDb();
    expect(existsSync(lockFileFor(dir))).toBe(false); // released on close
    const again = await db();
    expect(await again.host.findUnique({ where: { id: host.id } })).toMatchObject({
      name: 'survivor',
      redactionPaths: ['$target.secret'],
    });
  });

  it('refuses a second opener in the same process, naming the holder', async () => {
    await db();
    const message = `database directory ${dir} is in use by process ${process.pid} — stop it first or set DATA_DIR`;
    await expect(openDatabase({ kind: 'pglite', dir })).rejects.toMatchObject({
      code: 'data_dir_locked',
      message,
    });
    await expect(migrateTarget({ kind: 'pglite', dir })).rejects.toThrow(message);
  });

  it('npm run db:migrate refuses the directory while the app holds it, and runs once it is free', async () => {
    await db();
    const refused = migrateCli();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`[data_dir_locked]`);
    expect(refused.stderr).toContain(`is in use by process ${process.pid}`);
    await closeDb();
    const ok = migrateCli();
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain(`Already up to date (${names.length} migration(s) applied)`);
  });

  it('refuses to open while another process holds it, and takes over once that process is killed', async () => {
    await closeDb();
    const holder = await startHolder();
    await expect(db()).rejects.toThrow(
      `database directory ${dir} is in use by process ${holder.pid}`,
    );
    const exited = new Promise((r) => holder.once('exit', r));
    holder.kill('SIGKILL'); // no clean exit: the lock file stays behind
    await exited;
    expect(existsSync(lockFileFor(dir))).toBe(true);
    const client = await db(); // stale lock (dead pid) is taken over
    expect(await client.appSetting.findUnique({ where: { key: 'holder' } })).toMatchObject({
      value: { pid: expect.any(Number) },
    });
    expect(await client.host.count()).toBe(1);
  });
});
