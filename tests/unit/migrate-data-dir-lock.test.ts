import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, lockFileFor } from '@/lib/server/db/data-dir-lock';

/** One process per PGlite data directory, always: a second opener can corrupt it beyond repair. */

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-lock-'));
let n = 0;
const freshDir = () => path.join(tmp, `d${n++}`, 'pglite');
const releases: (() => void)[] = [];
afterEach(() => {
  for (const r of releases.splice(0)) r();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
/** Field 22 of /proc/<pid>/stat, read here independently of the code under test. */
function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}
const me = (over: object = {}) => ({
  startedAt: Date.now(),
  hostname: os.hostname(),
  bootId: BOOT_ID,
  ...over,
});

function take(dir: string) {
  const lock = acquireDataDirLock(dir);
  releases.push(() => lock.release());
  return lock;
}

function plant(dir: string, owner: unknown) {
  const file = lockFileFor(dir);
  rmSync(path.dirname(file), { recursive: true, force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof owner === 'string' ? owner : JSON.stringify(owner));
}

describe('acquireDataDirLock', () => {
  it('writes pid, start time and host beside the directory, and removes it on release', () => {
    const dir = freshDir();
    mkdirSync(path.dirname(dir), { recursive: true });
    const lock = acquireDataDirLock(dir);
    expect(lock.file).toBe(`${dir}.lock`);
    const owner = JSON.parse(readFileSync(lock.file, 'utf8'));
    expect(owner).toMatchObject({
      pid: process.pid,
      hostname: os.hostname(),
      bootId: BOOT_ID,
      startTicks: startTicks(process.pid),
    });
    expect(Math.abs(owner.startedAt - (Date.now() - process.uptime() * 1000))).toBeLessThan(1000);
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
  });

  it('refuses a second holder with the message people will read', () => {
    const dir = freshDir();
    mkdirSync(path.dirname(dir), { recursive: true });
    take(dir);
    let err: unknown;
    try {
      acquireDataDirLock(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect(err).toMatchObject({
      code: 'data_dir_locked',
      pid: process.pid,
      message: `database directory ${dir} is in use by process ${process.pid} — stop it first or set DATA_DIR`,
    });
  });

  it('names the directory relative to the working directory when it is inside it', () => {
    const cwd = process.cwd();
    process.chdir(tmp);
    try {
      const dir = path.join(tmp, '.data', 'pglite');
      plant(dir, { pid: process.ppid, startedAt: Date.now(), hostname: 'elsewhere' });
      expect(() => acquireDataDirLock(dir)).toThrow(
        /^database directory \.data\/pglite is in use by process \d+ — stop it first or set DATA_DIR/,
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it('takes over a lock whose process is dead (killed without cleanup)', () => {
    const dir = freshDir();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    plant(dir, me({ pid: gone, startTicks: 1 }));
    const lock = take(dir);
    expect(JSON.parse(readFileSync(lock.file, 'utf8')).pid).toBe(process.pid);
  });

  it('refuses while the recorded process still runs, and takes over once it has exited', async () => {
    const dir = freshDir();
    const child = spawn('sleep', ['30']);
    try {
      const pid = child.pid as number;
      plant(dir, me({ pid, startTicks: startTicks(pid) }));
      expect(() => acquireDataDirLock(dir)).toThrow(`is in use by process ${child.pid}`);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    expect(take(dir).file).toBe(lockFileFor(dir));
  });

  it('takes over a lock whose pid now belongs to a process started at another time', () => {
    const dir = freshDir();
    // Our parent is alive, but it is not the process that wrote this lock.
    plant(dir, me({ pid: process.ppid, startTicks: startTicks(process.ppid) + 1 }));
    expect(take(dir).file).toBe(lockFileFor(dir));
  });

  it('takes over a lock written before the machine rebooted, even if its pid is alive now', () => {
    const dir = freshDir();
    const pid = process.ppid;
    plant(
      dir,
      me({ pid, startTicks: startTicks(pid), bootId: '00000000-0000-0000-0000-000000000000' }),
    );
    expect(take(dir).file).toBe(lockFileFor(dir));
  });

  it('refuses when it cannot tell (a live pid and no start time recorded)', () => {
    const dir = freshDir();
    plant(dir, { pid: process.ppid, startedAt: 0, hostname: os.hostname() });
    expect(() => acquireDataDirLock(dir)).toThrow(`is in use by process ${process.ppid}`);
  });

  it('takes over its own pid from a previous life (pid 1 in a restarted container)', () => {
    const dir = freshDir();
    plant(dir, me({ pid: process.pid, startTicks: 1 }));
    expect(take(dir).file).toBe(lockFileFor(dir));
  });

  it('takes over an unreadable lock file', () => {
    const dir = freshDir();
    plant(dir, '{"pid": ');
    expect(take(dir).file).toBe(lockFileFor(dir));
  });

  it('never takes over a lock from another host, whose pids it cannot check', () => {
    const dir = freshDir();
    plant(dir, { pid: 4242, startedAt: 0, hostname: 'other-box' });
    expect(() => acquireDataDirLock(dir)).toThrow(
      `is in use by process 4242 — stop it first or set DATA_DIR (the lock was taken on host other-box; if that machine is gone, delete ${lockFileFor(dir)})`,
    );
  });
});
