import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOrCreateSecret } from '@/lib/server/auth/secret';
import { closeDb, db } from '@/lib/server/db';
import { openDatabase } from '@/lib/server/db/open';

/**
 * Item 8: DATA_DIR (the embedded database, whose WAL holds password hashes,
 * and the generated secrets) is owner-only: directories 0700, files 0600.
 * PGlite alone leaves ~970 of its files 0666.
 */

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-perms-'));
const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };

/** Every entry under `root` (itself included) with a group or other bit, as `mode path`. */
function openToOthers(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${(st.mode & 0o777).toString(8)} ${p}`);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(path.join(p, n));
  };
  walk(root);
  return out;
}

function loosen(root: string): number {
  let n = 0;
  const walk = (p: string) => {
    const st = lstatSync(p);
    chmodSync(p, st.isDirectory() ? 0o777 : 0o666);
    n++;
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
  };
  walk(root);
  return n;
}

beforeAll(async () => {
  await closeDb();
  delete process.env.DATABASE_URL;
});
afterAll(async () => {
  await closeDb();
  Object.assign(process.env, saved);
  if (saved.DATA_DIR === undefined) delete process.env.DATA_DIR;
  rmSync(tmp, { recursive: true, force: true });
});

describe('DATA_DIR permissions', () => {
  it('a fresh embedded database and its secrets are owner-only, open and after close', async () => {
    const dataDir = path.join(tmp, 'fresh', 'data');
    process.env.DATA_DIR = dataDir;
    const client = await db();
    await client.user.create({ data: { email: 'perm@example.com', passwordHash: 'x'.repeat(60) } });
    readOrCreateSecret(path.join(dataDir, 'auth-secret'));
    readOrCreateSecret(path.join(dataDir, 'encryption-key'));
    // The fixture really made a database and secrets (else the check proves nothing).
    const names = readdirSync(dataDir).sort();
    expect(names).toEqual(['auth-secret', 'encryption-key', 'pglite', 'pglite.lock']);
    expect(readdirSync(path.join(dataDir, 'pglite')).length).toBeGreaterThan(10);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);
    await closeDb();
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('a pre-existing 0666/0777 tree is fixed when the database opens', async () => {
    const dataDir = path.join(tmp, 'loose');
    const dir = path.join(dataDir, 'pglite');
    await (await openDatabase({ kind: 'pglite', dir, dataDir })).close();
    const total = loosen(dataDir);
    expect(openToOthers(dataDir)).toHaveLength(total);
    const h = await openDatabase({ kind: 'pglite', dir, dataDir });
    try {
      expect(h.permissionsFixed).toBe(total);
      expect(openToOthers(dataDir)).toEqual([]);
      expect((await h.client.$queryRaw<{ n: number }[]>`SELECT 1::int AS n`)[0].n).toBe(1);
    } finally {
      await h.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('only what Checkpoint keeps there is touched: other files in a shared DATA_DIR keep their modes', async () => {
    const dataDir = path.join(tmp, 'shared');
    const dir = path.join(dataDir, 'pglite');
    mkdirSync(path.join(dataDir, 'notes'), { recursive: true });
    writeFileSync(path.join(dataDir, 'notes', 'todo.txt'), 'mine');
    writeFileSync(path.join(dataDir, 'readme.txt'), 'mine');
    chmodSync(path.join(dataDir, 'notes'), 0o755);
    chmodSync(path.join(dataDir, 'notes', 'todo.txt'), 0o644);
    chmodSync(path.join(dataDir, 'readme.txt'), 0o644);
    await (await openDatabase({ kind: 'pglite', dir, dataDir })).close();
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(openToOthers(dir)).toEqual([]);
    expect(lstatSync(path.join(dataDir, 'notes')).mode & 0o777).toBe(0o755);
    expect(lstatSync(path.join(dataDir, 'notes', 'todo.txt')).mode & 0o777).toBe(0o644);
    expect(lstatSync(path.join(dataDir, 'readme.txt')).mode & 0o777).toBe(0o644);
  });

  it('npm run db:migrate fixes a loose tree and says how many entries it fixed', async () => {
    const dataDir = path.join(tmp, 'migrate');
    const dir = path.join(dataDir, 'pglite');
    await (await openDatabase({ kind: 'pglite', dir, dataDir })).close();
    const total = loosen(dataDir);
    const res = spawnSync('npm', ['run', '--silent', 'db:migrate'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
      timeout: 90_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stdout.split('\n').filter((l) => l.includes('DATA_DIR permissions'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${total} files and directories were open to other users`);
    expect(openToOthers(dataDir)).toEqual([]);
  });
});
