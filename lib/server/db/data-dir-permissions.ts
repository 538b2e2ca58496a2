import 'server-only';
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR holds the embedded database (its WAL carries password hashes and
 * webhook secrets) and the generated secrets: nobody but the owner may read
 * or write any of it. Directories are 0700, files 0600.
 *
 * The umask alone is not enough: PGlite's file system creates its files
 * with an explicit 0666 (only its directories follow the umask), so the
 * tree is also tightened after PGlite opens and again when it closes. The
 * 0700 directories keep files it creates in between out of others' reach.
 */

const PRIVATE_DIR = 0o700;
const GROUP_OTHER = 0o077;

/** New files and directories of this process: owner only. */
export function restrictUmask(): void {
  try {
    process.umask(0o077);
  } catch {
    // Worker threads cannot change the umask; the chmod walk still applies.
  }
}

/**
 * Removes group/other bits from `root` and everything under it (symlinks
 * are not followed), directories keeping rwx for the owner. Returns how
 * many entries were changed. A missing root changes nothing.
 */
export function tightenTree(root: string): number {
  let fixed = 0;
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop() as string;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch (err) {
      // Gone since it was listed (PGlite removes temp files): nothing to fix.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    if (st.isSymbolicLink()) continue;
    const mode = st.mode & 0o7777;
    const wanted = st.isDirectory() ? (mode & ~GROUP_OTHER) | PRIVATE_DIR : mode & ~GROUP_OTHER;
    if (wanted !== mode) {
      chmodSync(p, wanted);
      fixed++;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) stack.push(path.join(p, name));
    }
  }
  return fixed;
}

/**
 * What Checkpoint keeps in DATA_DIR: the generated secrets (auth/secret.ts,
 * webhooks/encryption.ts) and, by default, the embedded database. Only these
 * are walked, so a DATA_DIR pointed at a shared directory (a home) does not
 * get everything else in it chmodded.
 */
const OWN_ENTRIES = ['auth-secret', 'encryption-key'] as const;

/**
 * Tightens `root` itself, the secrets and the database directory `dbDir`
 * (wherever it lives, recursively). Returns how many entries changed.
 */
export function tightenDataDir(root: string, dbDir: string): number {
  let fixed = 0;
  try {
    const mode = lstatSync(root).mode & 0o7777;
    const wanted = (mode & ~GROUP_OTHER) | PRIVATE_DIR;
    if (wanted !== mode) {
      chmodSync(root, wanted);
      fixed++;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  for (const name of OWN_ENTRIES) fixed += tightenTree(path.join(root, name));
  if (path.resolve(dbDir) !== path.resolve(root)) fixed += tightenTree(dbDir);
  // The database's lock file sits next to it (data-dir-lock.ts).
  fixed += tightenTree(`${path.resolve(dbDir)}.lock`);
  return fixed;
}

/**
 * Before the embedded database opens: the owner-only umask, `root` created
 * 0700, and what Checkpoint keeps there tightened if others could reach it.
 * Returns the number of entries that had to be fixed (the caller logs it).
 */
export function prepareDataDir(root: string, dbDir: string): number {
  restrictUmask();
  mkdirSync(root, { recursive: true, mode: PRIVATE_DIR });
  return tightenDataDir(root, dbDir);
}
