/**
 * The engine's two runtime-neutral primitives against Node's own, on the
 * §10.2 identity preimage (the canonical projection) of realistic contexts
 * of ~1 KiB, ~32 KiB and ~1 MiB, ASCII and multilingual:
 * - SHA-256 hex: the engine's `identityOfCanonical` (Node's hash, reached
 *   through process.getBuiltinModule) and the portable @noble/hashes path
 *   (what a browser runs), each as a ratio to a static `node:crypto`
 *   createHash over the same string;
 * - UTF-8 length: the engine's `utf8Length`, a plain code-unit loop and
 *   TextEncoder.encode().length, each as a ratio to Buffer.byteLength.
 * `npm run bench:primitives` prints a table; `-- --json` prints only {"cases":[…]}.
 * Rounds are interleaved so that every variant sees the same machine load.
 */
import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalJson, identityOfCanonical, projectForIdentity, utf8Length } from '../lib/hooks';
import { contextOf, median, round2 } from './contexts';

const SIZES = [
  { label: '1 KiB', size: 1024 },
  { label: '32 KiB', size: 32 * 1024 },
  { label: '1 MiB', size: 1024 * 1024 },
];

/** The candidate rejected for utf8Length: exact, allocation-free, in JavaScript. */
function codeUnitLoop(s: string): number {
  const n = s.length;
  let extra = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) extra += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      extra += 2;
      i++;
    } else extra += 2;
  }
  return n + extra;
}

const encoder = new TextEncoder();

type Variant = { name: string; run: (s: string) => unknown };

const HASH: Variant[] = [
  {
    name: 'node:crypto (baseline)',
    run: (s) => createHash('sha256').update(s, 'utf8').digest('hex'),
  },
  { name: 'identityOfCanonical', run: (s) => identityOfCanonical(s) },
  { name: '@noble/hashes', run: (s) => bytesToHex(sha256(encoder.encode(s))) },
];

const LENGTH: Variant[] = [
  { name: 'Buffer.byteLength (baseline)', run: (s) => Buffer.byteLength(s, 'utf8') },
  { name: 'utf8Length', run: (s) => utf8Length(s) },
  { name: 'code-unit loop', run: codeUnitLoop },
  { name: 'TextEncoder.encode', run: (s) => encoder.encode(s).length },
];

/** Microseconds per call: the median of interleaved rounds, after warmup. */
function measure(variants: Variant[], text: string): number[] {
  // About 2 ms of baseline work per round.
  const perRound = Math.max(3, Math.round(2e6 / (text.length + 200)));
  const rounds = 25;
  const samples: number[][] = variants.map(() => []);
  for (let r = -3; r < rounds; r++) {
    variants.forEach((v, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < perRound; i++) v.run(text);
      const us = Number(process.hrtime.bigint() - t0) / 1e3 / perRound;
      if (r >= 0) samples[k].push(us);
    });
  }
  return samples.map(median);
}

function check(text: string) {
  const want = createHash('sha256').update(text, 'utf8').digest('hex');
  const bytes = Buffer.byteLength(text, 'utf8');
  for (const v of HASH) {
    const got = String(v.run(text)).replace(/^sha256:/, '');
    if (got !== want) throw new Error(`${v.name} disagrees with node:crypto`);
  }
  for (const v of LENGTH) {
    if (v.run(text) !== bytes) throw new Error(`${v.name} disagrees with Buffer.byteLength`);
  }
}

const cases = [];
for (const multilingual of [false, true]) {
  for (const { label, size } of SIZES) {
    const text = canonicalJson(projectForIdentity(contextOf(size, { multilingual })));
    check(text);
    for (const [primitive, variants] of [
      ['sha256', HASH],
      ['utf8 length', LENGTH],
    ] as const) {
      const us = measure(variants, text);
      cases.push({
        primitive,
        text: `${label} ${multilingual ? 'multilingual' : 'ascii'}`,
        utf8_bytes: Buffer.byteLength(text, 'utf8'),
        variants: variants.map((v, k) => ({
          name: v.name,
          us: round2(us[k]),
          ratio: round2(us[k] / us[0]),
        })),
      });
    }
  }
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ cases }));
} else {
  for (const c of cases) {
    console.log(`\n${c.primitive}, ${c.text} (${c.utf8_bytes} bytes)`);
    for (const v of c.variants) {
      console.log(
        `  ${v.name.padEnd(30)} ${String(v.us).padStart(10)} µs  ${String(v.ratio).padStart(6)}×`,
      );
    }
  }
}
