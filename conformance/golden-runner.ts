/**
 * The golden identity fixtures (conformance/golden/identity.json) run as part
 * of the kit: §13.2 says they apply exactly when the declared provider is
 * jcs-sha256. Each case is one result, in the same shape as a vector's.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Harness } from './harness';
import { CONFORMANCE_DIR } from './load';
import type { VectorResult } from './runner';

export const DEFAULT_GOLDEN_FILE = path.join(CONFORMANCE_DIR, 'golden', 'identity.json');
const PART = 'identity_provider/jcs-sha256/golden';

interface GoldenCase {
  name: string;
  covers: string;
  context?: unknown;
  context_json?: string;
  context_identity?: string;
  expect_error?: { reason: string };
}

export function runGolden(file: string, harness: Harness): VectorResult[] {
  if (!existsSync(file)) return [];
  const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases: GoldenCase[] }).cases;
  return cases.map((c) => runCase(c, harness));
}

function runCase(c: GoldenCase, harness: Harness): VectorResult {
  const base = { id: `golden/${c.name}`, title: c.covers, part: PART, failures: [] as string[] };
  const skip = (detail: string): VectorResult => ({ ...base, status: 'skip', detail });
  if (harness.declaration.identity_provider !== 'jcs-sha256') {
    return skip('golden identities apply only to a host declaring jcs-sha256 (§13.2)');
  }
  const seam = harness.identity;
  if (!seam) return skip('the harness exposes no identity seam');
  if (c.context_json !== undefined && !seam.computeText) {
    return skip('needs the host to read raw JSON text (values JSON.parse would alter)');
  }
  const compute = () =>
    c.context_json !== undefined ? seam.computeText!(c.context_json) : seam.compute(c.context);
  const failures: string[] = [];
  if (c.expect_error) {
    try {
      const got = compute();
      failures.push(`expected refusal ${c.expect_error.reason}, got identity ${got}`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== undefined && code !== c.expect_error.reason) {
        failures.push(`refused with ${String(code)}, expected ${c.expect_error.reason}`);
      }
    }
  } else {
    try {
      const got = compute();
      if (got !== c.context_identity)
        failures.push(`context_identity expected ${c.context_identity}, got ${got}`);
    } catch (error) {
      failures.push(`provider refused a valid context: ${(error as Error).message}`);
    }
  }
  return { ...base, failures, status: failures.length ? 'fail' : 'pass', detail: '§10.2' };
}
