import 'server-only';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One process per PGlite data directory, always: a second opener corrupted
 * the directory beyond repair (`RuntimeError: Aborted()`, twice). The lock is a file beside
 * the directory holding the owner's pid and start time; a lock whose owner
 * is gone (SIGKILL, container restart) is taken over.
 */

export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked' as const;
  constructor(
    readonly dir: string,
    readonly pid: number,
    foreignHost?: string,
  ) {
    super(
      `database directory ${displayPath(dir)} is in use by process ${pid} — stop it first or set DATA_DIR` +
        (foreignHost
          ? ` (the lock was taken on host ${foreignHost}; if that machine is gone, delete ${lockFileFor(dir)})`
          : ''),
    );
    this.name = 'DataDirLockedError';
  }
}

export interface LockOwner {
  pid: number;
  /** Wall-clock start of the owner, ms since the epoch (for people reading the file). */
  startedAt: number;
  hostname: string;
  /**
   * Linux: the kernel's boot id and the owner's start time in clock ticks
   * since boot. Together with the pid they name one process exactly, so a
   * reused pid is told apart with no wall clock involved.
   */
  bootId?: string;
  startTicks?: number;
}

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

export function lockFileFor(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

function displayPath(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') ? rel : dir;
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (start time, ticks since boot), or undefined off Linux. */
export function procStartTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded owner still runs; when in doubt, yes (fail closed). */
export function ownerIsAlive(owner: LockOwner, file: string): boolean {
  if (owner.hostname !== os.hostname()) {
    // Another machine or container sharing the volume: its pids mean
    // nothing here.
    return true;
  }
  if (owner.pid === process.pid) {
    // Our own pid in a file we do not hold: a previous life of this
    // container (pid 1 again after a restart).
    return heldFiles.has(file);
  }
  if (!isAlive(owner.pid)) return false;
  const boot = bootId();
  if (owner.bootId === undefined || owner.startTicks === undefined || boot === undefined) {
    return true;
  }
  // After a reboot, or with another start time, the pid belongs to someone else now.
  return owner.bootId === boot && procStartTicks(owner.pid) === owner.startTicks;
}

function readOwner(file: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null; // half-written or garbage: treated as stale below
  }
}

const heldFiles = new Set<string>();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const file of heldFiles) {
      try {
        unlinkSync(file);
      } catch {}
    }
  });
}

/**
 * Takes the lock for `dir` or throws DataDirLockedError naming the owner.
 * The file is created with O_EXCL, so two starters cannot both win; a stale
 * file is removed and the exclusive create retried once.
 */
export function acquireDataDirLock(dir: string): DataDirLock {
  const file = lockFileFor(dir);
  const owner: LockOwner = {
    pid: process.pid,
    startedAt: Math.round(Date.now() - process.uptime() * 1000),
    hostname: os.hostname(),
    bootId: bootId(),
    startTicks: procStartTicks('self'),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const current = readOwner(file);
      if (current && ownerIsAlive(current, file)) {
        const foreign = current.hostname !== os.hostname() ? current.hostname : undefined;
        throw new DataDirLockedError(dir, current.pid, foreign);
      }
      try {
        unlinkSync(file);
      } catch {}
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(owner)}\n`);
    } finally {
      closeSync(fd);
    }
    heldFiles.add(file);
    installExitHook();
    let released = false;
    return {
      file,
      release() {
        if (released) return;
        released = true;
        heldFiles.delete(file);
        // Only remove the file if it is still ours.
        if (readOwner(file)?.pid === process.pid) unlinkSync(file);
      },
    };
  }
  const current = readOwner(file);
  throw new DataDirLockedError(dir, current?.pid ?? -1);
}
