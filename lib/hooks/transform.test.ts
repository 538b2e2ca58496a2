import { describe, expect, it } from 'vitest';
import {
  applyTransform,
  formatPath,
  HOST_ERRORS,
  parseTransformPath,
} from '@checkpoint/agent-hooks';
import { ctxFor, hostWith, transform } from './test-helpers.ts';

describe('§5.2 transform path grammar', () => {
  it('parses dot-member, bracket-index and bracket-member segments', () => {
    // path-grammar.abnf: one member-name production for both member forms (path.test.ts has the rest).
    const parsed = parseTransformPath('$target.a_1[0]["b-c"]["9"].Z');
    expect(parsed).toEqual({
      ok: true,
      deprecatedRoot: false,
      segments: [
        { kind: 'member', name: 'a_1' },
        { kind: 'index', index: 0 },
        { kind: 'member', name: 'b-c' },
        { kind: 'member', name: '9' },
        { kind: 'member', name: 'Z' },
      ],
    });
  });

  it('accepts the deprecated $policy_target alias as $target', () => {
    const parsed = parseTransformPath('$policy_target.q');
    expect(parsed).toMatchObject({
      ok: true,
      deprecatedRoot: true,
      segments: [{ kind: 'member', name: 'q' }],
    });
  });

  for (const path of [
    '$.q',
    '$context.q',
    'q',
    '$targets.q',
    '$Target',
    '',
    'target.q',
    '$policy',
  ]) {
    it(`"${path}" is not rooted at $target: transform_target_forbidden`, () => {
      expect(parseTransformPath(path)).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformTargetForbidden,
      });
    });
  }

  for (const path of [
    '$target.',
    '$target["b c"]',
    '$target["a.b"]',
    '$target[-1]',
    '$target[1.5]',
    '$target[]',
    "$target['q']",
    '$target["q"',
    '$target["\\x"]',
    '$target q',
    '$target-x',
    '$target..q',
    '$target[*]',
    '$target[99999999999999999999]',
  ]) {
    it(`"${path}" is malformed: transform_invalid`, () => {
      expect(parseTransformPath(path)).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformInvalid,
      });
    });
  }

  it('formats segments back into a canonical path', () => {
    const parsed = parseTransformPath('$policy_target["a"][2]["b-c"]');
    expect(parsed.ok && formatPath(parsed.segments)).toBe('$target.a[2].b-c');
  });
});

describe('§5.2 applying a transform', () => {
  it('replaces the addressed location and writes back into the aliased field (§4.3)', () => {
    const ctx = ctxFor('pre_tool_call');
    const out = applyTransform(ctx, { path: '$target.q', value: 'redacted' });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.target).toEqual({ q: 'redacted', n: [1, 2] });
    expect(out.context.target).toBe(
      out.context.tool_call && (out.context.tool_call as { args: unknown }).args,
    );
    expect(out.context.tool_call).toEqual({
      id: 'call-1',
      name: 'search',
      args: { q: 'redacted', n: [1, 2] },
    });
  });

  it('never mutates the context it was given, and leaves every other part alone', () => {
    const ctx = ctxFor('pre_tool_call');
    const before = JSON.stringify(ctx);
    const out = applyTransform(ctx, { path: '$target.n[1]', value: 9 });
    expect(JSON.stringify(ctx)).toBe(before);
    if (!out.ok) throw new Error('expected ok');
    expect(out.context.target).toEqual({ q: 'secret', n: [1, 9] });
    const { target: _t, tool_call: _c, ...rest } = out.context;
    const { target: _t2, tool_call: _c2, ...restBefore } = ctx;
    expect(rest).toEqual(restBefore);
  });

  it('replaces the whole target at the root path', () => {
    const out = applyTransform(ctxFor('output'), { path: '$target', value: { content: 'safe' } });
    expect(out.ok && out.context.output).toEqual({ content: 'safe' });
    expect(out.ok && out.context.target).toBe(out.ok && out.context.output);
  });

  it('treats an absent value as null', () => {
    const out = applyTransform(ctxFor('pre_tool_call'), { path: '$target.q' });
    expect(out.ok && out.target).toEqual({ q: null, n: [1, 2] });
  });

  it('$policy_target applies exactly like $target', () => {
    const a = applyTransform(ctxFor('pre_tool_call'), { path: '$policy_target.q', value: 1 });
    const b = applyTransform(ctxFor('pre_tool_call'), { path: '$target.q', value: 1 });
    expect(a.ok && a.context).toEqual(b.ok && b.context);
  });

  const unresolved: Array<[string, string]> = [
    ['a missing member', '$target.missing'],
    ['an index past the end', '$target.n[2]'],
    ['an index on an object', '$target[0]'],
    ['a member on an array', '$target.n.length'],
    ['a member below a string', '$target.q.x'],
    ['a bracket member on an array', '$target.n["0"]'],
  ];
  for (const [what, path] of unresolved) {
    it(`${what} is transform_invalid`, () => {
      expect(applyTransform(ctxFor('pre_tool_call'), { path, value: 1 })).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformInvalid,
      });
    });
  }

  for (const point of ['agent_startup', 'agent_shutdown'] as const) {
    it(`§4.3 ${point} forbids transform: transform_target_forbidden`, async () => {
      expect(applyTransform(ctxFor(point), { path: '$target', value: {} })).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformTargetForbidden,
      });
      const result = await hostWith([transform('$target', {})]).evaluate(ctxFor(point));
      expect(result.verdict.reason).toBe(HOST_ERRORS.transformTargetForbidden);
      expect(result.proceed).toBe(false);
      // §10.3: a §5.2 failure never names an interceptor as decided_by.
      expect(result.record.decided_by).toBeNull();
    });
  }

  const replacements = {
    input: { content: 'rewritten', role: 'user' },
    pre_model_call: [{ role: 'user', content: 'rewritten' }],
    post_model_call: { content: 'rewritten', tool_calls: [], finish_reason: 'stop' },
    pre_tool_call: { q: 'rewritten' },
    post_tool_call: 'rewritten',
    output: { content: 'rewritten' },
  } as const;
  for (const [point, value] of Object.entries(replacements)) {
    it(`the transformed target is what the action consumes at ${point}`, async () => {
      const result = await hostWith([transform('$target', value)]).evaluate(
        ctxFor(point as 'input'),
      );
      expect(result.proceed).toBe(true);
      expect(result.target).toEqual(value);
      expect(result.record.enforced_identity).not.toBe(result.record.input_identity);
    });
  }

  it('a transform that breaks the §4 envelope (input without content) is transform_invalid', async () => {
    const result = await hostWith([transform('$target', { other: 1 })]).evaluate(ctxFor('input'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.transformInvalid);
    expect(result.proceed).toBe(false);
  });

  it('a result outside the §4.4 domain is context_invalid with a null enforced identity (§10.2)', async () => {
    const host = hostWith([
      () => ({ decision: 'transform', transform: { path: '$target.q', value: 2 ** 60 } }),
    ]);
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.verdict.message).toContain('$.target.q');
    expect(result.proceed).toBe(false);
    expect(result.record.input_identity).toMatch(/^sha256:/);
    expect(result.record).toMatchObject({ enforced_identity: null, decided_by: null });
  });

  it('a result nested past the depth bound is context_invalid too: the whole context is checked', async () => {
    // 125 levels: the verdict (2 + 125) and the value alone pass the 128 bound; at
    // tool_call.args.n[0] the context reaches 4 + 125.
    let deep: unknown = 1;
    for (let i = 0; i < 125; i++) deep = [deep];
    const host = hostWith([
      () => ({ decision: 'transform', transform: { path: '$target.n[0]', value: deep } }),
    ]);
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.record.enforced_identity).toBeNull();
  });

  it('evaluate_only still finds the domain failure but applies nothing; identities stay equal (§8)', async () => {
    const host = hostWith(
      [() => ({ decision: 'transform', transform: { path: '$target.q', value: 2 ** 60 } })],
      { mode: 'evaluate_only' },
    );
    const ctx = ctxFor('pre_tool_call');
    const result = await host.evaluate(ctx);
    expect(result.proceed).toBe(true);
    expect(result.target).toEqual(ctx.target);
    expect(result.record.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.record.enforced_identity).toBe(result.record.input_identity);
  });
});
