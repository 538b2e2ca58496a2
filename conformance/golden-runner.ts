/**
 * The golden identity fixtures run as part of the kit: §13.2 says they apply
 * exactly when the declared provider is jcs-sha256. The file is either the
 * project's (conformance/golden/identity.json) or the public kit's fixtures
 * format (golden-format.ts); each fixture is one result, shaped like a vector's.
 */
import path from 'node:path';
import { type GoldenFixture, readGoldenFile } from './golden-format';
import type { Harness } from './harness';
import { CONFORMANCE_DIR } from './load';
import type { VectorResult } from './runner';

export const DEFAULT_GOLDEN_FILE = path.join(CONFORMANCE_DIR, 'golden', 'identity.json');
const PART = 'identity_provider/jcs-sha256/golden';
const HOST_ERROR = 'host_error:';

/** Throws CtkError (`ctk_usage`) for a missing file or one in neither format. */
export function runGolden(file: string, harness: Harness): VectorResult[] {
  return runGoldenFixtures(readGoldenFile(file), harness);
}

/** Fixtures already read (the CLI reads the file before any vector runs, so a bad file fails first). */
export function runGoldenFixtures(fixtures: GoldenFixture[], harness: Harness): VectorResult[] {
  return fixtures.map((f) => runFixture(f, harness));
}

function runFixture(f: GoldenFixture, harness: Harness): VectorResult {
  const base = { id: `golden/${f.id}`, title: f.title, part: PART, failures: [] as string[] };
  const skip = (detail: string): VectorResult => ({ ...base, status: 'skip', detail });
  if (harness.declaration.identity_provider !== 'jcs-sha256') {
    return skip('golden identities apply only to a host declaring jcs-sha256 (§13.2)');
  }
  const seam = harness.identity;
  if (!seam) return skip('the harness exposes no identity seam');
  // §10.2: the number domain is lexical at a JSON-text funnel, so a context
  // given as text goes through the host's own funnel when it has one.
  const text = f.contextText;
  if (text !== undefined && !seam.computeText) {
    return skip('needs the host to read raw JSON text (values JSON.parse would alter)');
  }
  const compute = () => (text !== undefined ? seam.computeText!(text) : seam.compute(f.context));
  const failures =
    f.error !== undefined
      ? refusalFailures(compute, f.error)
      : identityFailures(compute, f.identity!);
  return { ...base, failures, status: failures.length ? 'fail' : 'pass', detail: '§10.2' };
}

function identityFailures(compute: () => string, expected: string): string[] {
  try {
    const got = compute();
    return got === expected ? [] : [`context_identity expected ${expected}, got ${got}`];
  } catch (error) {
    return [`provider refused a valid context: ${(error as Error).message}`];
  }
}

function refusalFailures(compute: () => string, expected: string): string[] {
  let got: string;
  try {
    got = compute();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // A host whose errors carry no code cannot be checked further; the public
    // kit may name the reason with or without the host_error: prefix (§11).
    if (code === undefined || bare(String(code)) === bare(expected)) return [];
    return [`refused with ${String(code)}, expected ${expected}`];
  }
  return [`expected refusal ${expected}, got identity ${got}`];
}

function bare(reason: string): string {
  return reason.startsWith(HOST_ERROR) ? reason.slice(HOST_ERROR.length) : reason;
}
