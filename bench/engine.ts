/**
 * Engine cost per emission on the allow path (sequential/first_deny,
 * jcs-sha256) against a floor of JSON.stringify + SHA-256 of the same
 * context. `npm run bench:engine` prints a table; `-- --json` prints only
 * {"cases":[…], "build":…, "loadavg":[…]}. Medians over rounds, after warmup.
 *
 * What is measured is a production-like build: this file (with the engine
 * and the contexts) is bundled by esbuild into a temporary ES module without
 * `keepNames`, and that bundle runs under plain `node`. tsx transforms with
 * `keepNames`, which wraps every function and class in a naming call and
 * measured ≈ 0.3× the floor at 1 KiB, a cost no build of the published
 * package has. `-- --source` measures the sources under tsx instead;
 * `-- --cpu-prof` hands `--cpu-prof` (into `--cpu-prof-dir=DIR`, default
 * $TMPDIR/bench-engine-prof) to the measuring process.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentContext, createHost } from '../lib/hooks';
import { contextOf, median, round2 as round } from './contexts';

/** Set (by `define`) only inside the bundle: what the measuring process runs. */
declare const ENGINE_BENCH_BUILD: string | undefined;
const BUILD = typeof ENGINE_BENCH_BUILD === 'string' ? ENGINE_BENCH_BUILD : null;
const SOURCE_BUILD = 'source under tsx (keepNames)';

const CASES = [
  { size: 1024, interceptors: 1 },
  { size: 100 * 1024, interceptors: 5 },
  { size: 1024 * 1024, interceptors: 10 },
];

async function timeAsync(
  fn: () => Promise<unknown>,
  perRound: number,
  rounds: number,
): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < perRound; k++) await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e3 / perRound);
  }
  return median(samples);
}

async function runCase(size: number, count: number) {
  const ctx = contextOf(size);
  // A realistic trivial policy: it reads the point and the target, then allows.
  const interceptors = Array.from({ length: count }, (_, i) => ({
    name: `allow-${i}`,
    intercept: (c: AgentContext) => ({
      decision: 'allow' as const,
      reason: Array.isArray(c.target) && c.interception_point === 'pre_model_call' ? 'ok' : 'other',
    }),
  }));
  const host = createHost({ agent: { id: 'bench-agent', framework: 'bench' }, interceptors });
  const emission = async () => {
    const result = await host.evaluate(ctx);
    if (!result.proceed) throw new Error(`benchmark emission denied: ${result.verdict.reason}`);
  };
  const floor = async () => createHash('sha256').update(JSON.stringify(ctx)).digest('hex');
  const perRound = size > 500_000 ? 5 : size > 50_000 ? 30 : 2000;
  const rounds = size > 500_000 ? 21 : 31;
  for (let w = 0; w < 3; w++) {
    await timeAsync(emission, perRound, 1);
    await timeAsync(floor, perRound, 1);
  }
  // Interleave so that both see the same machine load.
  const e: number[] = [];
  const f: number[] = [];
  for (let r = 0; r < rounds; r++) {
    e.push(await timeAsync(emission, perRound, 1));
    f.push(await timeAsync(floor, perRound, 1));
  }
  const us = median(e);
  const floorUs = median(f);
  return {
    size_bytes: Buffer.byteLength(JSON.stringify(ctx)),
    interceptors: count,
    us_per_emission: round(us),
    floor_us: round(floorUs),
    ratio: round(us / floorUs),
  };
}

/** Bundles this file without keepNames and runs it under plain node; returns its exit code. */
async function runBundled(args: string[]): Promise<number> {
  // esbuild comes with tsx; imported here only, so the bundle never loads it.
  const { build } = await import('esbuild');
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-engine-'));
  const outfile = path.join(dir, 'engine.mjs');
  try {
    await build({
      entryPoints: [fileURLToPath(import.meta.url)],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      keepNames: false,
      minify: false,
      external: ['esbuild'],
      define: { ENGINE_BENCH_BUILD: JSON.stringify('esbuild bundle, no keepNames, plain node') },
      logLevel: 'warning',
    });
    const profDir = path.resolve(
      args.find((a) => a.startsWith('--cpu-prof-dir='))?.slice(15) ??
        path.join(tmpdir(), 'bench-engine-prof'),
    );
    const profile = args.includes('--cpu-prof');
    if (profile) console.error(`cpu profile: ${profDir}`);
    const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
    const child = spawnSync(process.execPath, [...nodeArgs, outfile, ...args], {
      stdio: 'inherit',
    });
    return child.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const json = args.includes('--json');
if (BUILD === null && !args.includes('--source')) {
  process.exitCode = await runBundled(args);
} else {
  const load = loadavg().map(round);
  const cases = [];
  for (const c of CASES) cases.push(await runCase(c.size, c.interceptors));
  const loadAfter = loadavg().map(round);
  const build = BUILD ?? SOURCE_BUILD;
  if (json) {
    console.log(
      JSON.stringify({
        build,
        node: process.version,
        loadavg: load,
        loadavg_after: loadAfter,
        cases,
      }),
    );
  } else {
    console.log(`build: ${build}, node ${process.version}`);
    console.log(`load average: ${load.join(' ')} (before), ${loadAfter.join(' ')} (after)`);
    console.log('size_bytes  interceptors  us/emission  floor_us  ratio');
    for (const c of cases) {
      console.log(
        `${String(c.size_bytes).padStart(10)}  ${String(c.interceptors).padStart(12)}  ${String(c.us_per_emission).padStart(11)}  ${String(c.floor_us).padStart(8)}  ${String(c.ratio).padStart(5)}`,
      );
    }
  }
}
