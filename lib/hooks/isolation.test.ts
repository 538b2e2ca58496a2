import { describe, expect, it } from 'vitest';
import {
  type AgentContext,
  isolatedView,
  isView,
  type Profile,
  toPlain,
} from '@checkpoint/agent-hooks';
import { counted, ctxFor, hostWith } from './test-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: these tests reach into contexts structurally.
type Loose = any;

const mutate = (ctx: AgentContext) => {
  const c = ctx as Loose;
  c.target.q = 'MUTATED';
  c.target.n.push(99);
  c.tool_call.name = 'rm_rf';
  c.sequence = 1000;
  c.extra = { injected: true };
  delete c.agent;
  return { decision: 'allow' };
};

describe('§7 per-interceptor copy isolation', () => {
  for (const profile of [
    'sequential/first_deny',
    'sequential/run_all',
    'parallel/strictest',
    'parallel/unanimous',
  ] as Profile[]) {
    it(`an in-place mutation changes nothing: enforcement, identity, later interceptors (${profile})`, async () => {
      const ctx = ctxFor('pre_tool_call');
      const before = JSON.stringify(ctx);
      const later = counted();
      const reference = await hostWith([later.intercept], { composition: profile }).evaluate(
        ctxFor('pre_tool_call'),
      );
      const result = await hostWith([mutate, later.intercept], { composition: profile }).evaluate(
        ctx,
      );
      // The CTK "mutate" fault: mutate, then allow — which must still be allow.
      expect(result.proceed).toBe(true);
      expect(result.verdict).toEqual({ decision: 'allow' });
      expect(JSON.stringify(ctx)).toBe(before);
      expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
      expect(result.record.input_identity).toBe(reference.record.input_identity);
      expect(result.record.enforced_identity).toBe(reference.record.input_identity);
      const seen = later.calls.at(-1)!;
      expect(seen.target).toEqual({ q: 'secret', n: [1, 2] });
      expect(seen.tool_call).toEqual({
        id: 'call-1',
        name: 'search',
        args: { q: 'secret', n: [1, 2] },
      });
      expect(seen.agent).toBeDefined();
      expect(seen).not.toHaveProperty('extra');
    });
  }

  it('an interceptor sees its own writes, and aliases stay one object inside its view', () => {
    const view = isolatedView(ctxFor('pre_tool_call')) as Loose;
    expect(view.target).toBe(view.tool_call.args);
    view.target.q = 'mine';
    expect(view.tool_call.args.q).toBe('mine');
    view.target.n.push(3);
    expect(view.target.n).toEqual([1, 2, 3]);
    expect(Array.isArray(view.target.n)).toBe(true);
    expect(JSON.parse(JSON.stringify(view.target))).toEqual({ q: 'mine', n: [1, 2, 3] });
    expect(Object.keys(view.target)).toEqual(['q', 'n']);
    expect({ ...view.target }.q).toBe('mine');
    delete view.target.q;
    expect('q' in view.target).toBe(false);
    expect(isView(view)).toBe(true);
    expect(toPlain(view.tool_call)).toEqual({
      id: 'call-1',
      name: 'search',
      args: { n: [1, 2, 3] },
    });
  });

  it('views of the same context are independent of each other', () => {
    const ctx = ctxFor('pre_tool_call');
    const a = isolatedView(ctx) as Loose;
    const b = isolatedView(ctx) as Loose;
    a.target.q = 'a';
    expect(b.target.q).toBe('secret');
    expect((ctx.target as { q: string }).q).toBe('secret');
  });

  it('works over a frozen context (no proxy invariant trips)', () => {
    const ctx = ctxFor('pre_tool_call');
    const freeze = (v: unknown): void => {
      if (v && typeof v === 'object') {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
    };
    freeze(ctx);
    const view = isolatedView(ctx) as Loose;
    view.target.q = 'ok';
    expect(view.target.q).toBe('ok');
    expect(Object.getOwnPropertyDescriptor(view.target, 'q')?.value).toBe('ok');
    expect(JSON.stringify(view.target.n)).toBe('[1,2]');
  });

  it('a verdict built from the view is detached from it (the transform value is plain data)', async () => {
    const host = hostWith([
      (ctx) => {
        const c = ctx as Loose;
        c.target.n.push(7);
        return { decision: 'transform', transform: { path: '$target.n', value: c.target.n } };
      },
    ]);
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    const n = (result.target as { n: number[] }).n;
    expect(n).toEqual([1, 2, 7]);
    expect(isView(n)).toBe(false);
    expect(structuredClone(result.target)).toEqual({ q: 'secret', n: [1, 2, 7] });
  });

  it('an interceptor cannot reach the original through its view', () => {
    const ctx = ctxFor('input');
    const view = isolatedView(ctx) as Loose;
    view.input = { content: 'swapped', role: 'system' };
    view.target.content = 'changed';
    expect(ctx.input).toEqual({ content: 'hello', role: 'user' });
  });
});
