#!/usr/bin/env node
// `npm test`: every check the project has, in order, failing fast on lint
// and types, then unit, integration (real PostgreSQL + Redis), the CTK, and
// end-to-end tests in Chromium against a production build. Ends with one
// line "tests: N passed, M failed" that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'test-results');
const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function run(name, cmd, args, env = {}) {
  console.log(`\n━━ ${name}: ${cmd} ${args.join(' ')}`);
  const res = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (res.status !== 0) failures.push(name);
  return res.status === 0;
}

function countVitest(file) {
  if (!existsSync(file)) return false;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests;
  totals.skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  return true;
}

function countPlaywright(file) {
  if (!existsSync(file)) return false;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
  totals.failed += r.stats?.unexpected ?? 0;
  totals.skipped += r.stats?.skipped ?? 0;
  return true;
}

function reachable(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.end();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

async function requireServices() {
  for (const [name, port] of [
    ['PostgreSQL', 5432],
    ['Redis', 6379],
  ]) {
    if (!(await reachable(port))) {
      console.error(
        `${name} is not reachable on 127.0.0.1:${port}; start it (see README) and re-run.`,
      );
      process.exit(1);
    }
  }
}

/** Playwright cannot download its own browser here: use Debian's. */
function ensureChromium() {
  if (existsSync('/usr/bin/chromium')) return;
  if (process.getuid?.() !== 0) {
    console.error('Chromium is missing: run `sudo apt-get install -y chromium` and re-run.');
    process.exit(1);
  }
  console.log('Installing Chromium from Debian (needed by the end-to-end tests)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  const res = spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: 'inherit', env });
  if (res.status !== 0) process.exit(1);
}

const want = (step) => only.length === 0 || only.includes(step);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

if (want('lint')) run('lint', 'npx', ['biome', 'check', '.']);
if (want('types')) run('types', 'npx', ['tsc', '--noEmit', '-p', '.']);
if (failures.length) {
  console.error(`\nStopped: ${failures.join(', ')} failed.`);
  console.log(`tests: 0 passed, ${failures.length} failed`);
  process.exit(1);
}

/**
 * Runs one test step and adds its counts (read by `count` from the step's
 * JSON report). A step that fails without a counted test failure (it could
 * not start, or its report is missing) counts as one failure.
 */
function step(name, cmd, args, count, env = {}) {
  const before = totals.failed;
  const ok = run(name, cmd, args, env);
  const counted = count();
  if ((!ok || !counted) && totals.failed === before) totals.failed += 1;
}

const vitest = (project) => {
  const file = path.join(out, `${project}.json`);
  const args = ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json'];
  step(project, 'npx', [...args, `--outputFile.json=${file}`], () => countVitest(file));
};

if (want('unit')) vitest('unit');
if (want('integration')) {
  await requireServices();
  vitest('integration');
}
if (want('ctk')) {
  const file = path.join(out, 'ctk.json');
  const report = path.join(out, 'ctk-report.md');
  step(
    'ctk',
    'node',
    ['bin/agent-hooks.mjs', 'ctk', '--json-file', file, '--report', report],
    () => {
      if (!existsSync(file)) return false;
      const s = JSON.parse(readFileSync(file, 'utf8')).summary;
      totals.passed += s.pass;
      totals.failed += s.fail;
      totals.skipped += s.skip;
      return true;
    },
  );
}
if (want('e2e')) {
  await requireServices();
  ensureChromium();
  const file = path.join(out, 'e2e.json');
  step('e2e', 'npx', ['playwright', 'test', '--reporter=list,json'], () => countPlaywright(file), {
    PLAYWRIGHT_JSON_OUTPUT_NAME: file,
  });
}

if (failures.length) console.error(`\nFailed steps: ${failures.join(', ')}`);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length || totals.failed ? 1 : 0);
