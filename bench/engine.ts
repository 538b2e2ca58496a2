/**
 * Engine cost per emission on the allow path (sequential/first_deny,
 * jcs-sha256) against a floor of JSON.stringify + SHA-256 of the same
 * context. `npm run bench:engine` prints a table; `-- --json` prints only
 * {"cases":[…]}. Medians over rounds, after warmup.
 */
import { createHash } from 'node:crypto';
import { type AgentContext, createHost } from '../lib/hooks';
import { contextOf, median, round2 as round } from './contexts';

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

const json = process.argv.includes('--json');
const cases = [];
for (const c of CASES) cases.push(await runCase(c.size, c.interceptors));
if (json) {
  console.log(JSON.stringify({ cases }));
} else {
  console.log('size_bytes  interceptors  us/emission  floor_us  ratio');
  for (const c of cases) {
    console.log(
      `${String(c.size_bytes).padStart(10)}  ${String(c.interceptors).padStart(12)}  ${String(c.us_per_emission).padStart(11)}  ${String(c.floor_us).padStart(8)}  ${String(c.ratio).padStart(5)}`,
    );
  }
}
