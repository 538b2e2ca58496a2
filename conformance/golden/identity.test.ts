import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@/lib/hooks/canonical-json';
import { ValueDomainError } from '@/lib/hooks/errors';
import { jcsSha256, projectForIdentity } from '@/lib/hooks/identity';
import { parseJsonText } from '@/lib/hooks/json-text';

type GoldenCase = {
  name: string;
  covers: string;
  context?: unknown;
  context_json?: string;
  canonical?: string;
  context_identity?: string;
  expect_error?: { reason: string; stage: 'parse' | 'identity'; message_contains: string };
};

// JSON.parse is lossless for this file: 2^53, 1e16, 1e20 and 1e21 are exact
// doubles, and every value whose lexical form matters (or that JSON.parse
// would round or collapse) sits in a context_json string.
const golden = JSON.parse(readFileSync(new URL('./identity.json', import.meta.url), 'utf8')) as {
  provenance: string;
  cases: GoldenCase[];
};

const positive = golden.cases.filter((c) => c.canonical !== undefined);
const negative = golden.cases.filter((c) => c.expect_error !== undefined);

/** The case's context: a JSON-text case goes through the JSON-text funnel, whose number domain is lexical (§10.2). */
function contextOf(c: GoldenCase): unknown {
  return c.context_json !== undefined ? parseJsonText(c.context_json) : c.context;
}

function refusal(fn: () => unknown): ValueDomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValueDomainError);
    return error as ValueDomainError;
  }
  throw new Error('expected the context to be refused');
}

describe('golden context identities (§10.2, conformance/golden/identity.json)', () => {
  it('has enough cases over enough points, and says where its values came from', () => {
    expect(positive.length).toBeGreaterThanOrEqual(14);
    expect(negative.length).toBeGreaterThanOrEqual(4);
    const points = new Set(
      positive.map((c) => (contextOf(c) as { interception_point: string }).interception_point),
    );
    expect(points.size).toBe(8);
    expect(golden.provenance).toMatch(/by hand/);
  });

  it.each(positive.map((c) => [c.name, c] as const))('%s: canonical projection', (_name, c) => {
    expect(canonicalJson(projectForIdentity(contextOf(c)))).toBe(c.canonical);
  });

  it.each(positive.map((c) => [c.name, c] as const))('%s: context_identity', (_name, c) => {
    expect(jcsSha256.compute(contextOf(c))).toBe(c.context_identity);
  });

  it.each(negative.map((c) => [c.name, c] as const))('%s: refused', (_name, c) => {
    const expected = c.expect_error!;
    const error = refusal(() => jcsSha256.compute(contextOf(c)));
    expect(error.code).toBe(expected.reason);
    expect(error.message).toContain(expected.message_contains);
    if (expected.stage === 'parse') {
      expect(c.context_json).toBeTypeOf('string');
      refusal(() => parseJsonText(c.context_json!));
    } else {
      // The identity stage refuses a context the parser accepted.
      refusal(() => jcsSha256.compute(contextOf(c)));
    }
  });
});
