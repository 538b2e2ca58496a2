import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  currentOwner,
  type LockOwner,
  otherProcessIsAlive,
  parseOwner,
  procStartTicks,
} from '@/lib/server/db/lock-owner';

/**
 * One process per PGlite data directory, always: a second opener corrupted
 * the directory beyond repair (`RuntimeError: Aborted()`, twice). The lock is
 * a file beside the directory holding the owner's pid, host and start time;
 * a lock whose owner is gone (SIGKILL, container restart) is taken over.
 *
 * Every step is atomic, because starters do race (two at the same instant
 * both won half the time when the file was created empty and then written):
 * - the owner is written whole to a private temp file, which is then
 *   `link()`ed into place; link fails with EEXIST when the name is taken,
 *   so exactly one starter wins and nobody ever reads a half-written file;
 * - a stale lock is removed only by the one starter that won a claim on
 *   that very file (its inode and text), again by `link()`. A starter that
 *   read the stale file late finds another file there and backs off, so a
 *   fresh lock is never deleted as stale. A claimer that died mid-takeover
 *   is passed over (the next claim slot), so no crash wedges the directory.
 */

export type { LockOwner };
export { procStartTicks };

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

/** Whether the recorded owner still runs; when in doubt, yes (fail closed). */
export function ownerIsAlive(owner: LockOwner, file: string): boolean {
  if (owner.pid === process.pid && owner.hostname === os.hostname()) {
    // Our own pid in a file we do not hold: a previous life of this
    // container (pid 1 again after a restart).
    return heldFiles.has(file);
  }
  return otherProcessIsAlive(owner);
}

interface LockState {
  /** Names this one file: its inode and its exact text. */
  generation: string;
  text: string;
  owner: LockOwner | null;
}

/** The lock file as one consistent read (one open file), or null when there is none. */
function readLockState(file: string): LockState | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const { ino } = fstatSync(fd, { bigint: true });
    const text = readFileSync(fd, 'utf8');
    const generation = createHash('sha256').update(`${ino}\0${text}`).digest('hex').slice(0, 16);
    return { generation, text, owner: parseOwner(text) };
  } finally {
    closeSync(fd);
  }
}

/** The generation of the lock file now there (tests plant claims with it). */
export function lockGeneration(file: string): string | null {
  return readLockState(file)?.generation ?? null;
}

/** Slot `n` of the claims on one generation of a stale lock file. */
export function takeoverClaimFile(file: string, generation: string, n: number): string {
  return `${file}.takeover-${generation}-${n}`;
}

/** `link()`: creates `to` as another name of `from`, or false if `to` exists. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** The lock is taken synchronously (callers hold no event loop yet); a claim lasts microseconds. */
function sleepMs(ms: number) {
  Atomics.wait(pause, 0, 0, ms);
}

/**
 * Removes the stale lock file of `generation` and puts ours in its place,
 * if this process wins the claim on it. 'busy': a live starter holds the
 * claim; 'changed': the file is no longer that stale one (look again).
 */
function takeOver(file: string, tmp: string, generation: string): 'won' | 'busy' | 'changed' {
  for (let n = 0; ; n++) {
    const claim = takeoverClaimFile(file, generation, n);
    if (tryLink(tmp, claim)) {
      try {
        // Only a holder of this generation's claim removes this generation,
        // and we are the one live holder: if it is still there, it is ours
        // to remove, and nothing else can have replaced it meanwhile.
        if (readLockState(file)?.generation !== generation) return 'changed';
        unlinkSync(file);
        return tryLink(tmp, file) ? 'won' : 'changed';
      } finally {
        // Ours and those of claimers that died before finishing.
        for (let i = 0; i <= n; i++)
          rmSync(takeoverClaimFile(file, generation, i), { force: true });
      }
    }
    const claimer = readLockState(claim);
    if (claimer === null) return 'changed'; // finished just now
    if (claimer.owner && ownerIsAlive(claimer.owner, claim)) return 'busy';
    // That claimer died mid-takeover: the next slot.
  }
}

/** Temp and claim files that crashed starters left beside the lock. */
function sweepLeftovers(file: string) {
  const base = `${path.basename(file)}.`;
  const dir = path.dirname(file);
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(base) || !(name.endsWith('.tmp') || name.includes('.takeover-'))) continue;
    const leftover = path.join(dir, name);
    const owner = readLockState(leftover)?.owner;
    if (owner ? !ownerIsAlive(owner, leftover) : olderThan(leftover, 2 * CONTENDED_MS)) {
      rmSync(leftover, { force: true });
    }
  }
}

/**
 * A file with no readable owner is a starter's temp file between its
 * creation and its write (not yet a leftover: removing it makes that
 * starter's link fail) unless it is older than a start can take.
 */
function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ms;
  } catch {
    return false;
  }
}

/** How long a starter waits for another one's takeover to finish. */
const CONTENDED_MS = 10_000;

/**
 * Takes the lock for `dir` or throws DataDirLockedError naming the owner.
 * Of any number of processes starting at once, exactly one gets it.
 */
export function acquireDataDirLock(dir: string): DataDirLock {
  const file = lockFileFor(dir);
  const text = `${JSON.stringify(currentOwner())}\n`;
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { flag: 'wx', mode: 0o600 });
  try {
    const deadline = Date.now() + CONTENDED_MS;
    let last: LockState | null = null;
    while (Date.now() < deadline) {
      if (tryLink(tmp, file)) return hold(file, text);
      last = readLockState(file);
      if (last === null) continue; // released in between: try again
      if (last.owner && ownerIsAlive(last.owner, file)) throw lockedBy(dir, last.owner);
      const outcome = takeOver(file, tmp, last.generation);
      if (outcome === 'won') return hold(file, text);
      if (outcome === 'busy') sleepMs(5);
    }
    throw new DataDirLockedError(dir, last?.owner?.pid ?? -1);
  } finally {
    rmSync(tmp, { force: true });
  }
}

function lockedBy(dir: string, owner: LockOwner): DataDirLockedError {
  const foreign = owner.hostname !== os.hostname() ? owner.hostname : undefined;
  return new DataDirLockedError(dir, owner.pid, foreign);
}

function hold(file: string, text: string): DataDirLock {
  heldFiles.add(file);
  installExitHook();
  try {
    sweepLeftovers(file);
  } catch {
    // Tidying only: never a reason to fail the start.
  }
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      heldFiles.delete(file);
      // Only remove the file if it is still ours.
      if (readLockState(file)?.text === text) unlinkSync(file);
    },
  };
}
