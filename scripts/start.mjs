#!/usr/bin/env node
// `npm start`: build when the build is missing or older than the sources,
// then run the production server. With DATABASE_URL unset the app runs on
// the embedded PGlite database in DATA_DIR, migrated on start, and the
// worker runs in the same process. With DATABASE_URL set, the server
// applies pending migrations as it starts (lib/server/boot.ts) unless
// MIGRATE_ON_START=false.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent, STAMP_FILE, sourceStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const distDir = path.join(root, process.env.NEXT_DIST_DIR || '.next');
const stampFile = path.join(distDir, STAMP_FILE);

function ensureBuild() {
  const stamp = sourceStamp(root);
  const built = buildIsCurrent(root, path.relative(root, distDir), stamp);
  if (built) return;
  console.log('Building the app (first start, or the sources changed)…');
  const res = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    console.error('The build failed; not starting.');
    process.exit(res.status ?? 1);
  }
  writeFileSync(stampFile, stamp);
}

function portFromEnv() {
  const raw = process.env.PORT ?? '3000';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(
      `Invalid configuration:\n  PORT: must be an integer from 1 to 65535 (got "${raw}")`,
    );
    process.exit(1);
  }
  return port;
}

const port = portFromEnv();
if (!process.argv.includes('--no-build')) ensureBuild();

// Next's own SIGTERM handler exits after ~1.5 s and would cut off the
// worker's close (the job then re-runs as stalled a minute later);
// lib/server/boot.ts installs ours instead.
const child = spawn(process.execPath, [nextBin, 'start', '-p', String(port)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NEXT_MANUAL_SIG_HANDLE: '1', NODE_ENV: 'production' },
});
console.log(`Checkpoint is starting at http://localhost:${port}`);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
