import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { digestContext } from './digest.ts';
import { jcsSha256 } from './identity.ts';
import { parseJsonText } from './json-text.ts';
import { ctxFor } from './test-helpers.ts';
import type { AgentContext } from './types.ts';
import { checkValueDomain } from './value-domain.ts';
import { INTERCEPTION_POINTS, type InterceptionPoint } from './vocabulary.ts';

/**
 * The one-pass digest (fixed projection layout per point, one canonical text
 * for the target and its alias, the byte count skipped when the text is far
 * under the bound) against the general path: checkValueDomain, then
 * jcsSha256.compute, and Buffer.byteLength for the size. For contexts built
 * in-process the two must agree exactly: the same identity, or both refuse.
 */

type Limits = { maxBytes: number; maxDepth: number };

function generalPath(ctx: unknown, limits: Limits): string | null {
  try {
    checkValueDomain(ctx, limits);
    return jcsSha256.compute(ctx);
  } catch {
    return null;
  }
}

function expectAgreement(ctx: AgentContext, limits: Limits): string | null {
  const expected = generalPath(ctx, limits);
  const fast = digestContext(ctx, limits);
  expect(fast?.identity ?? null).toBe(expected);
  const measured = digestContext(ctx, limits, { measure: true });
  expect(measured?.identity ?? null).toBe(expected);
  if (measured) expect(measured.bytes).toBe(Buffer.byteLength(JSON.stringify(ctx)));
  return expected;
}

/** The top-level member `target` aliases at each point, and where in it (§4.3). */
const ALIAS: Record<InterceptionPoint, [string, string | null]> = {
  agent_startup: ['agent_init', null],
  input: ['input', null],
  pre_model_call: ['messages', null],
  post_model_call: ['response', null],
  pre_tool_call: ['tool_call', 'args'],
  post_tool_call: ['tool_result', 'value'],
  output: ['output', null],
  agent_shutdown: ['summary', null],
};

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('東京の天気 😀', 'crème "brûlée"\n', '\u0000\u001f\\', 'lone \ud800'),
);
const key = fc.oneof(text, fc.constantFrom('10', '9', 'a', 'zz', 'A', 'é', '__proto__'));
const { value: json } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, 2 ** 53, 1e21, Number.NaN, true, false, null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

interface Shape {
  point: InterceptionPoint;
  payload: unknown;
  /** Members outside the projection, at the top and inside the aliased object. */
  extras: Record<string, unknown>;
  innerExtras: Record<string, unknown>;
  agentExtras: Record<string, unknown>;
  /** Target as a structural copy (a context that crossed the wire) instead of an alias. */
  copyTarget: boolean;
  /** Rotation of the top-level member order: the digest must not depend on it. */
  rotate: number;
}

const shape: fc.Arbitrary<Shape> = fc.record({
  point: fc.constantFrom(...INTERCEPTION_POINTS),
  payload: json,
  extras: fc.dictionary(key, json, { maxKeys: 3 }),
  innerExtras: fc.dictionary(key, json, { maxKeys: 2 }),
  agentExtras: fc.dictionary(fc.constantFrom('name', 'version', 'x'), json, { maxKeys: 2 }),
  copyTarget: fc.boolean(),
  rotate: fc.nat(20),
});

/** A context at `point` whose aliased value carries `payload`, with extras in unsorted places. */
function contextOf(s: Shape): AgentContext {
  const base = ctxFor(s.point) as Record<string, unknown>;
  const [top, nested] = ALIAS[s.point];
  const holder = { ...s.innerExtras, ...(base[top] as Record<string, unknown>) };
  if (nested !== null) holder[nested] = s.payload;
  else if (s.point === 'pre_model_call') base[top] = [{ role: 'user', content: s.payload }];
  else holder.content = s.payload;
  if (s.point !== 'pre_model_call') base[top] = holder;
  const aliased = nested === null ? base[top] : holder[nested];
  base.target = s.copyTarget ? structuredCloneOrSame(aliased) : aliased;
  base.agent = { ...s.agentExtras, ...(base.agent as object) };
  const merged = { ...s.extras, ...base };
  const keys = Object.keys(merged);
  const order = [...keys.slice(s.rotate % keys.length), ...keys.slice(0, s.rotate % keys.length)];
  return Object.fromEntries(order.map((k) => [k, merged[k]])) as AgentContext;
}

function structuredCloneOrSame(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

describe('the one-pass digest agrees with checkValueDomain + jcsSha256.compute', () => {
  const roomy = { maxBytes: 5 * 1024 * 1024, maxDepth: 128 };

  it('at every point, with extras, unsorted members, unicode and copied targets', () => {
    fc.assert(
      fc.property(shape, (s) => {
        expectAgreement(contextOf(s), roomy);
      }),
      { numRuns: 1500 },
    );
  });

  it('accepts every in-domain context it is given (the slow path is the exception)', () => {
    const inDomain = fc.jsonValue({ maxDepth: 3 }).filter((v) => {
      try {
        canonicalJson(v);
        return true;
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(shape, inDomain, (s, payload) => {
        const ctx = contextOf({ ...s, payload, extras: {}, innerExtras: {}, agentExtras: {} });
        expect(expectAgreement(ctx, roomy)).not.toBeNull();
        expect(digestContext(ctx, roomy)).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('decides the size bound exactly, with and without the byte count', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const ctx = contextOf(s);
        const body = JSON.stringify(ctx);
        const exact = Buffer.byteLength(body);
        // Around the exact size, and around the bound where counting is skipped (3 bytes a unit).
        for (const maxBytes of [
          exact - 1,
          exact,
          exact + 1,
          body.length * 3 - 1,
          body.length * 3,
          body.length * 3 + 1,
        ]) {
          const identity = expectAgreement(ctx, { maxBytes, maxDepth: 128 });
          if (maxBytes < exact) expect(identity).toBeNull();
        }
      }),
      { numRuns: 500 },
    );
  });

  it('counts the bytes near the bound for multi-byte text (3 bytes a unit at most)', () => {
    for (const unit of ['東', '😀', 'é', 'a', '東😀é"\n']) {
      for (const n of [1, 50, 700]) {
        const payload = unit.repeat(n);
        const ctx = contextOf({
          point: 'output',
          payload,
          extras: { note: payload },
          innerExtras: {},
          agentExtras: {},
          copyTarget: false,
          rotate: n,
        });
        const exact = Buffer.byteLength(JSON.stringify(ctx));
        for (let maxBytes = exact - 3; maxBytes <= exact + 3; maxBytes++) {
          const identity = expectAgreement(ctx, { maxBytes, maxDepth: 128 });
          expect(identity === null).toBe(maxBytes < exact);
        }
      }
    }
  });

  it('puts the depth bound where the general path does', () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 1, max: 7 }), (s, maxDepth) => {
        expectAgreement(contextOf(s), { maxBytes: 5 * 1024 * 1024, maxDepth });
      }),
      { numRuns: 500 },
    );
  });

  it('declines what the general path refuses: missing members, non-plain objects', () => {
    const missing = ctxFor('pre_tool_call') as Record<string, unknown>;
    missing.tool_call = { id: 'c', args: missing.target };
    expect(expectAgreement(missing as AgentContext, roomy)).toBeNull();

    const undefinedMember = { ...ctxFor('output'), spec: undefined } as unknown as AgentContext;
    expect(expectAgreement(undefinedMember, roomy)).toBeNull();

    class Agent {
      id = 'agent-1';
      framework = 'test';
    }
    const classAgent = { ...ctxFor('input'), agent: new Agent() } as AgentContext;
    expect(expectAgreement(classAgent, roomy)).toBeNull();

    class Context {}
    const classContext = Object.assign(new Context(), ctxFor('input')) as unknown as AgentContext;
    expect(expectAgreement(classContext, roomy)).toBeNull();

    const nullProto = Object.assign(Object.create(null), ctxFor('input')) as AgentContext;
    expect(expectAgreement(nullProto, roomy)).not.toBeNull();

    const unknownPoint = {
      ...ctxFor('input'),
      interception_point: 'elsewhere',
    } as unknown as AgentContext;
    expect(digestContext(unknownPoint, roomy)).toBeNull();
  });

  it('declines (never contradicts) a number vouched for by the JSON-text funnel', () => {
    const ctx = parseJsonText(
      JSON.stringify(ctxFor('post_tool_call')).replace('{"hits":["a","b"]}', '1e16'),
    ) as AgentContext;
    expect(generalPath(ctx, roomy)).not.toBeNull();
    // A vouched scalar target is left to the general path, which knows the token.
    expect(digestContext(ctx, roomy)).toBeNull();
  });
});
