import { describe, expect, it } from 'vitest';
import {
  buildContext,
  HOST_ERRORS,
  INTERCEPTION_POINTS,
  type InterceptionPoint,
  validateContextEnvelope,
} from '@checkpoint/agent-hooks';
import { allow, counted, ctxFor, hostWith } from './test-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: these tests reach into contexts structurally.
type Loose = any;

const invalid = HOST_ERRORS.contextInvalid;

describe('§4 context builders', () => {
  const aliases: Record<InterceptionPoint, (c: Loose) => unknown> = {
    agent_startup: (c) => c.agent_init,
    input: (c) => c.input,
    pre_model_call: (c) => c.messages,
    post_model_call: (c) => c.response,
    pre_tool_call: (c) => c.tool_call.args,
    post_tool_call: (c) => c.tool_result.value,
    output: (c) => c.output,
    agent_shutdown: (c) => c.summary,
  };
  for (const point of INTERCEPTION_POINTS) {
    it(`§4.3 at ${point} target is a live alias of the §3 target field, and the envelope validates`, () => {
      const ctx = ctxFor(point);
      expect(ctx.target).toBe(aliases[point](ctx));
      expect(ctx.spec).toBe('agent-hooks/0.1');
      expect(ctx.interception_point).toBe(point);
      expect(validateContextEnvelope(ctx).ok).toBe(true);
    });
  }

  it('passes optional fields and extensions through verbatim', async () => {
    const ctx = ctxFor('input', {
      tenant: { id: 't' },
      extensions: { acs: { anything: [1, { x: null }] }, myhost: 'v' },
    });
    const seen = counted();
    await hostWith([seen.intercept]).evaluate(ctx);
    expect(seen.calls[0].tenant).toEqual({ id: 't' });
    expect(seen.calls[0].extensions).toEqual({ acs: { anything: [1, { x: null }] }, myhost: 'v' });
  });
});

describe('§4 envelope validation', () => {
  const broken: Array<[string, (c: Loose) => void]> = [
    ['spec outside the pattern', (c) => (c.spec = 'agent-hooks/1')],
    ['an unknown interception_point', (c) => (c.interception_point = 'pre_everything')],
    ['a timestamp that is not RFC 3339', (c) => (c.timestamp = '19 June 2026')],
    ['a negative sequence', (c) => (c.sequence = -1)],
    ['a fractional sequence', (c) => (c.sequence = 1.5)],
    ['agent.id absent', (c) => delete c.agent.id],
    ['agent.framework not lowercase', (c) => (c.agent.framework = 'LangChain')],
    ['session.id not a string', (c) => (c.session.id = 5)],
    ['target absent', (c) => delete c.target],
    ['tool_call.args not an object', (c) => (c.tool_call.args = 'x')],
    ['tool_call.name absent', (c) => delete c.tool_call.name],
    ['target not the aliased value', (c) => (c.target = { q: 'other' })],
    ['an extension namespace outside the pattern', (c) => (c.extensions = { 'Bad-NS': 1 })],
    ['request_id not a string', (c) => (c.request_id = 1)],
    ['trace.trace_id not a string', (c) => (c.trace = { trace_id: 1 })],
  ];
  for (const [what, breakIt] of broken) {
    it(`rejects ${what} as context_invalid, before any interceptor runs (§6.3)`, async () => {
      const ctx = structuredClone(ctxFor('pre_tool_call')) as Loose;
      ctx.target = ctx.tool_call.args;
      breakIt(ctx);
      const check = validateContextEnvelope(ctx);
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.reason).toBe(invalid);
      const seen = counted();
      const result = await hostWith([seen.intercept]).evaluate(ctx);
      expect(seen.calls).toHaveLength(0);
      expect(result.proceed).toBe(false);
      expect(result.verdict.reason).toBe(invalid);
      // §10.2: no identity over a rejected envelope.
      expect(result.record.input_identity).toBeNull();
      expect(result.record.enforced_identity).toBeNull();
      expect(result.record.decided_by).toBeNull();
    });
  }

  it('accepts a context that crossed the wire (target a deep-equal copy of its field)', () => {
    const ctx = JSON.parse(JSON.stringify(ctxFor('post_tool_call')));
    expect(ctx.target).not.toBe(ctx.tool_result.value);
    expect(validateContextEnvelope(ctx).ok).toBe(true);
  });

  const conditional: Array<[InterceptionPoint, (c: Loose) => void]> = [
    ['agent_startup', (c) => (c.agent_init.tools_registered = [1])],
    ['input', (c) => (c.input.role = 'admin')],
    ['pre_model_call', (c) => (c.model = {})],
    ['post_model_call', (c) => delete c.response.tool_calls],
    ['post_tool_call', (c) => (c.tool_result.is_error = 'no')],
    ['output', (c) => (c.output.content = 3)],
    ['agent_shutdown', (c) => (c.summary.reason = 'done')],
  ];
  for (const [point, breakIt] of conditional) {
    it(`§4.2 checks the conditional fields of ${point}`, () => {
      const ctx = structuredClone(ctxFor(point)) as Loose;
      breakIt(ctx);
      expect(validateContextEnvelope(ctx)).toMatchObject({ ok: false, reason: invalid });
    });
  }

  it('messages never quote the offending value (§14)', () => {
    const ctx = structuredClone(ctxFor('input')) as Loose;
    ctx.input.role = 'SECRET-ROLE-VALUE';
    const check = validateContextEnvelope(ctx);
    expect(!check.ok && check.message).not.toContain('SECRET');
  });
});

describe('§4.4 value domain and §12.3 bounds', () => {
  const run = (ctx: unknown, limits?: { maxBytes?: number; maxDepth?: number }) =>
    hostWith([allow], { limits }).evaluate(ctx);

  const outside: Array<[string, unknown]> = [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a lone surrogate', 'a\ud800b'],
    ['an integer beyond 2^53-1', 2 ** 53],
    ['a Date', new Date(0)],
    ['a bigint', 10n],
  ];
  for (const [what, value] of outside) {
    it(`${what} in the target is context_invalid, not a crash`, async () => {
      const ctx = buildContext('pre_tool_call', ctxFor('input'), {
        tool_call: { id: 'c', name: 't', args: { v: value } },
      });
      const result = await run(ctx);
      expect(result.proceed).toBe(false);
      expect(result.verdict.reason).toBe(invalid);
      expect(result.record.input_identity).toBeNull();
    });
  }

  it('a value outside the domain in an optional field or extension is rejected too', async () => {
    for (const extra of [
      { budgets: { cost_usd: Number.NaN } },
      { extensions: { mine: { id: 2 ** 60 } } },
    ]) {
      const result = await run(ctxFor('input', extra));
      expect(result.verdict.reason).toBe(invalid);
    }
  });

  it('a context over the size bound is context_invalid, never truncated', async () => {
    const ctx = buildContext('output', ctxFor('input'), { output: { content: 'x'.repeat(2000) } });
    expect((await run(ctx, { maxBytes: 1000 })).verdict.reason).toBe(invalid);
    expect((await run(ctx, { maxBytes: 10_000 })).proceed).toBe(true);
  });

  it('the size bound counts optional fields and extensions too', async () => {
    const ctx = ctxFor('input', { extensions: { mine: 'x'.repeat(2000) } });
    expect((await run(ctx, { maxBytes: 1500 })).verdict.reason).toBe(invalid);
  });

  it('a context deeper than the bound is context_invalid (default 128)', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i++) deep = [deep];
    const ctx = buildContext('pre_tool_call', ctxFor('input'), {
      tool_call: { id: 'c', name: 't', args: { deep } },
    });
    expect((await run(ctx)).verdict.reason).toBe(invalid);
    let shallow: unknown = 'leaf';
    for (let i = 0; i < 20; i++) shallow = [shallow];
    const ok = buildContext('pre_tool_call', ctxFor('input'), {
      tool_call: { id: 'c', name: 't', args: { shallow } },
    });
    expect((await run(ok)).proceed).toBe(true);
    expect((await run(ok, { maxDepth: 10 })).verdict.reason).toBe(invalid);
  });

  it('a cyclic context is context_invalid', async () => {
    const args: Record<string, unknown> = {};
    args.self = args;
    const ctx = buildContext('pre_tool_call', ctxFor('input'), {
      tool_call: { id: 'c', name: 't', args },
    });
    expect((await run(ctx)).verdict.reason).toBe(invalid);
  });

  it('the default bound is 5 MiB', async () => {
    const big = buildContext('output', ctxFor('input'), {
      output: { content: 'x'.repeat(5 * 1024 * 1024) },
    });
    expect((await run(big)).verdict.reason).toBe(invalid);
  });
});
