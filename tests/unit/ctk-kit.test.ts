/**
 * The CTK's own parts: path assertions, the scripted seams, the independent
 * jcs-sha256, the vector schema's strictness, and the verdict-validation
 * cases (§5) the public format cannot carry.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ctkJcsSha256 } from '@/conformance/jcs-identity';
import { deepEqual, resolvePath } from '@/conformance/json-path';
import { CONFORMANCE_DIR, validateVector } from '@/conformance/load';
import { SCHEMA_BASE } from '@/spec';
import { referenceHarness } from '@/conformance/reference-harness';
import { runVector } from '@/conformance/runner';
import {
  MUTATED,
  scriptedInterceptor,
  scriptedRedactor,
  scriptedResolver,
} from '@/conformance/scripted';
import type { Vector } from '@/conformance/vector';

describe('assertion paths', () => {
  const doc = { a: { b: [{ c: null }, { 'x.y': 2 }] }, u: undefined };
  it('resolves dotted, indexed and quoted segments; null resolves, a missing member does not', () => {
    expect(resolvePath(doc, 'a.b[0].c')).toEqual({ found: true, value: null });
    expect(resolvePath(doc, 'a.b[1]["x.y"]')).toEqual({ found: true, value: 2 });
    expect(resolvePath(doc, 'a.b[2]').found).toBe(false);
    expect(resolvePath(doc, 'a.b.c').found).toBe(false);
    expect(resolvePath(doc, 'u').found).toBe(false);
  });
  it('compares as JSON: member order does not matter, array order does', () => {
    expect(deepEqual({ x: 1, y: [1, 2] }, { y: [1, 2], x: 1 })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ x: null }, {})).toBe(false);
    expect(deepEqual(1, '1')).toBe(false);
  });
});

describe('scripted seams (FORMAT.md)', () => {
  it('the redactor replaces the target path and its aliased field, leaves unresolvable paths alone', () => {
    const redact = scriptedRedactor(['$target.key', '$target.missing.deep'])!;
    const ctx = {
      interception_point: 'pre_tool_call',
      tool_call: { id: 'c', name: 't', args: { key: 'sk-1', q: 'x' } },
      target: { key: 'sk-1', q: 'x' },
    };
    const out = redact(ctx) as typeof ctx;
    expect(out.target).toEqual({ key: '[redacted]', q: 'x' });
    expect(out.tool_call.args).toEqual({ key: '[redacted]', q: 'x' });
    // The redactor is pure: the host's context is untouched.
    expect(ctx.target.key).toBe('sk-1');
  });

  it('the redactor refuses a path outside the §5.2 grammar instead of skipping it', () => {
    expect(() => scriptedRedactor(['$target["with space"]'])).toThrow(/redact_for_approval/);
    expect(scriptedRedactor(['$target.order-id'])).toBeTypeOf('function');
  });

  it('mutate overwrites the received object in place and still allows (§7 probe)', () => {
    const intercept = scriptedInterceptor([{ at: 'input', fault: 'mutate' }]);
    const ctx = { interception_point: 'input', input: { content: 'hi', role: 'user' } };
    expect(intercept(ctx)).toEqual({ decision: 'allow', reason: 'ctk:mutated' });
    expect(ctx.input.content).toBe(MUTATED);
  });

  it('the resolver echoes, overrides, recomputes, and answers unresolved when nothing matches', () => {
    const request = {
      context_identity: 'id-1',
      interception_point: 'input',
      verdict: {},
      context: { a: 1 },
    };
    const echo = scriptedResolver([
      { resolve: { outcome: 'approve', verdict: { decision: 'allow' } } },
    ])!;
    expect(echo(request)).toEqual({
      outcome: 'approve',
      context_identity: 'id-1',
      verdict: { decision: 'allow' },
    });
    const none = scriptedResolver([{ match: { a: 2 }, resolve: { outcome: 'approve' } }])!;
    expect(none(request)).toEqual({ outcome: 'unresolved', context_identity: 'id-1' });
    const over = scriptedResolver([
      { resolve: { outcome: 'reject', identity_override: 'other' } },
    ])!;
    expect(over(request).context_identity).toBe('other');
    expect(scriptedResolver([])).toBeNull();
  });
});

describe('independent jcs-sha256 (§10.2)', () => {
  it('hashes the required+conditional projection only, matching a hand-canonicalized fixture', () => {
    // Expected value: sha256sum over the canonical bytes written by hand (keys sorted, no spaces).
    const ctx = {
      timestamp: '2026-01-01T00:00:00.000Z',
      spec: 'agent-hooks/0.1',
      interception_point: 'input',
      sequence: 1,
      agent: { id: 'a', framework: 'checkpoint', name: 'optional, excluded' },
      session: { id: 's', turn: 3 },
      input: { role: 'user', content: 'hé' },
      target: { role: 'user', content: 'hé' },
      extensions: { host: { excluded: true } },
    };
    expect(ctkJcsSha256(ctx)).toBe(
      'sha256:120feab907a4f3f7f8b804a85fe33c9252419ac91b01ebbae59f48b284cd8119',
    );
  });
});

/** The public agent-hooks schema, when the shared checkout sits beside the project. */
const PUBLIC_SCHEMA = path.resolve(
  CONFORMANCE_DIR,
  '..',
  '..',
  'shared',
  'ctk',
  'vectors.schema.json',
);

function withoutDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k]) => k !== 'description')
        .map(([k, v]) => [k, withoutDescriptions(v)]),
    );
  }
  return node;
}

describe('vectors.schema.json accepts exactly the public format', () => {
  it.skipIf(!existsSync(PUBLIC_SCHEMA))(
    "has the public schema's keywords, descriptions aside",
    () => {
      // The project's schemas carry ids of their own (item 11); the content must match.
      const ours = JSON.parse(
        readFileSync(path.join(CONFORMANCE_DIR, 'vectors.schema.json'), 'utf8').replaceAll(
          SCHEMA_BASE,
          'https://responsibleai.github.io/agent-hooks/schema/v0.1/',
        ),
      );
      const theirs = JSON.parse(readFileSync(PUBLIC_SCHEMA, 'utf8'));
      expect(withoutDescriptions(ours)).toEqual(withoutDescriptions(theirs));
    },
  );

  const good = JSON.parse(
    readFileSync(
      path.join(CONFORMANCE_DIR, 'vectors', 'AH-CTK-001-text-turn-emits-six-points-in-order.json'),
      'utf8',
    ),
  );
  it('accepts a project vector', () => expect(validateVector(good)).toEqual([]));
  it.each([
    ['an unknown top-level member', { ...good, extra: 1 }],
    ['both interceptor forms', { ...good, interceptor_scripts: [] }],
    ['neither interceptor form', (({ interceptor_script, ...v }) => v)(good)],
    ['a malformed id', { ...good, id: 'CTK-1' }],
    ['an unknown capability', { ...good, capabilities: ['telepathy'] }],
    ['an unknown profile', { ...good, composition: { profile: 'parallel/quorum' } }],
    [
      'an unknown interception point',
      { ...good, interceptor_script: [{ at: 'pre_thought', return: { decision: 'allow' } }] },
    ],
    [
      'an invalid verdict',
      { ...good, interceptor_script: [{ at: 'input', return: { decision: 'warn' } }] },
    ],
    [
      'a rule with both return and fault',
      {
        ...good,
        interceptor_script: [{ at: 'input', fault: 'raise', return: { decision: 'allow' } }],
      },
    ],
    ['a redaction path not rooted at $target', { ...good, redact_for_approval: ['$context.x'] }],
    ['a missing expect.run_outcome', { ...good, expect: { interceptions: [] } }],
  ])('rejects %s', (_, vector) => {
    expect(validateVector(vector).length).toBeGreaterThan(0);
  });
});

describe('§5 verdict validation beyond the public format', () => {
  // The spec's verdict schema refuses these shapes, so no public vector can
  // script them; they run here through the same runner and harness.
  const vectors = JSON.parse(
    readFileSync(path.join(CONFORMANCE_DIR, 'off-format', 'verdict-validation.json'), 'utf8'),
  ) as Vector[];
  it.each(vectors.map((v) => [v.id, v] as const))('%s', async (_, vector) => {
    expect(validateVector({ ...vector, id: 'AH-CTK-999' }).length).toBeGreaterThan(0);
    const result = await runVector(vector, referenceHarness);
    expect(result.failures).toEqual([]);
    expect(result.status).toBe('pass');
  });
});
