// Builds the app into its own dist dir (NEXT_DIST_DIR, default `.next-bench`)
// when the build is missing or older than the sources, the way
// scripts/start.mjs decides: a fingerprint of every source file's path, size
// and mtime, written next to the build once it succeeded.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildIsCurrent, STAMP_FILE, sourceStamp } from '../../scripts/build-stamp.mjs';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

/** Returns whether it built; throws when `next build` fails (no usable build then). */
export function ensureBuild(distDir: string, log: (...a: unknown[]) => void, quiet: boolean) {
  const stampFile = path.join(ROOT, distDir, STAMP_FILE);
  const stamp = sourceStamp(ROOT);
  if (buildIsCurrent(ROOT, distDir, stamp)) return false;
  log(`building the app into ${distDir} (missing or older than the sources)…`);
  // `next build` with a distDir of its own adds `<distDir>/types` to
  // tsconfig.json's include (and reformats it); the bench leaves the tree as
  // it found it.
  const tsconfig = path.join(ROOT, 'tsconfig.json');
  const before = readFileSync(tsconfig);
  let res: ReturnType<typeof spawnSync>;
  try {
    res = spawnSync(process.execPath, [NEXT_BIN, 'build'], {
      cwd: ROOT,
      env: { ...process.env, NEXT_DIST_DIR: distDir },
      stdio: quiet ? 'ignore' : ['ignore', process.stderr, process.stderr],
    });
  } finally {
    if (!readFileSync(tsconfig).equals(before)) writeFileSync(tsconfig, before);
  }
  if (res.status !== 0) throw new Error(`next build into ${distDir} failed`);
  writeFileSync(stampFile, stamp);
  return true;
}

if (process.argv[1] === import.meta.filename) {
  ensureBuild(process.env.NEXT_DIST_DIR || '.next-bench', console.error, false);
}
