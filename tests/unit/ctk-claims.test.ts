/**
 * §13.3: every number in conformance/CLAIMS.md is produced by a command. This
 * runs the kit exactly as `npx agent-hooks ctk --json` does and checks the
 * claim's summary line, its vector/golden split and its skip table against it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ctk } from '@/bin/commands/ctk';
import { CONFORMANCE_DIR } from '@/conformance/load';

const CLAIMS = readFileSync(path.join(CONFORMANCE_DIR, 'CLAIMS.md'), 'utf8');
/** What a JavaScript host cannot declare (§13.1): the only acceptable skips. */
const UNDECLARABLE = new Set(['int64_json', 'bigint_json', 'incremental_output']);

type Result = { id: string; status: string; detail: string | null };

async function runKit(): Promise<{ summary: Record<string, number>; results: Result[] }> {
  const out: string[] = [];
  const code = await ctk(['--json'], { out: (s) => void out.push(s), err: () => {} });
  expect(code).toBe(0);
  return JSON.parse(out.join(''));
}

function claimed(pattern: RegExp): number[] {
  const m = pattern.exec(CLAIMS.replace(/\s+/g, ' '));
  expect(m, `CLAIMS.md states ${pattern}`).not.toBeNull();
  return (m as RegExpExecArray).slice(1).map(Number);
}

describe('CLAIMS.md says what the kit reports', () => {
  it('the summary, the vector/golden split and the skip table match a run', async () => {
    const run = await runKit();
    const [pass, fail, skip] = claimed(/pass (\d+), fail (\d+), skip (\d+)/);
    expect(run.summary).toEqual({ pass, fail, skip });
    const vectors = run.results.filter((r) => !r.id.startsWith('golden/'));
    const golden = run.results.filter((r) => r.id.startsWith('golden/'));
    const count = (rs: Result[], s: string) => rs.filter((r) => r.status === s).length;
    const [nVectors, vPass, vSkip, nGolden, gPass] = claimed(
      /(\d+) project vectors \((\d+) pass, (\d+) skip\) and (\d+) golden identity fixtures .*?(\d+) pass\)/,
    );
    expect([vectors.length, count(vectors, 'pass'), count(vectors, 'skip')]).toEqual([
      nVectors,
      vPass,
      vSkip,
    ]);
    expect([golden.length, count(golden, 'pass')]).toEqual([nGolden, gPass]);

    // Every skip is a capability a JavaScript host cannot declare, and the claim names it.
    for (const r of run.results.filter((x) => x.status === 'skip')) {
      const missing = (r.detail ?? '').replace(/^harness does not declare: /, '').split(', ');
      expect(r.detail, r.id).toMatch(/^harness does not declare: /);
      for (const m of missing) expect(UNDECLARABLE.has(m), `${r.id} skips for ${m}`).toBe(true);
      expect(CLAIMS).toContain(`| ${r.id} | \`${missing.join('`, `')}\` |`);
    }
  }, 120_000);
});
