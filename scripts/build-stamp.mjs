// What a production build depends on, and its fingerprint (every source
// file's path, size and mtime). `npm start` (scripts/start.mjs) and the
// benchmarks rebuild when the fingerprint written next to the build no
// longer matches the sources.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const BUILD_SOURCES = [
  'app',
  'lib',
  'spec',
  'public',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.js',
  'postcss.config.mjs',
  'tsconfig.json',
  'package-lock.json',
  'prisma',
];

/** Written into the dist dir once a build succeeded. */
export const STAMP_FILE = 'checkpoint-source-stamp';

export function sourceStamp(root) {
  const hash = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      if (p.endsWith(`${path.sep}generated`)) return;
      for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    } else {
      hash.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const s of BUILD_SOURCES) walk(path.join(root, s));
  return hash.digest('hex');
}

/** True when `<root>/<distDir>` holds a finished build of exactly these sources. */
export function buildIsCurrent(root, distDir, stamp = sourceStamp(root)) {
  const dir = path.join(root, distDir);
  const stampFile = path.join(dir, STAMP_FILE);
  return (
    existsSync(path.join(dir, 'BUILD_ID')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === stamp
  );
}
