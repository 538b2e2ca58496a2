import { describe, expect, it } from 'vitest';
import { HOST_ERRORS } from '@checkpoint/agent-hooks';
import {
  allow,
  counted,
  ctxFor,
  deny,
  escalate,
  hostWith,
  resolverOf,
  sleep,
  transform,
} from './test-helpers.ts';

const STRICTEST = 'parallel/strictest' as const;
const UNANIMOUS = 'parallel/unanimous' as const;

describe('§7.5 parallel/strictest', () => {
  it('every interceptor sees the same untransformed snapshot', async () => {
    const seen = counted();
    const host = hostWith([transform('$target.q', 'changed'), seen.intercept], {
      composition: STRICTEST,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect((seen.calls[0].target as { q: string }).q).toBe('secret');
    expect(result.target).toEqual({ q: 'changed', n: [1, 2] });
    expect(result.record).toMatchObject({
      decided_by: 0,
      composition: { profile: STRICTEST, on_transform_conflict: 'deny' },
    });
    expect(result.record).not.toHaveProperty('fold_truncated');
    expect(result.record.verdicts).toEqual([
      { index: 0, decision: 'transform' },
      { index: 1, decision: 'allow' },
    ]);
  });

  it('dispatches concurrently: total time is the slowest, not the sum', async () => {
    const slow = async () => {
      await sleep(60);
      return { decision: 'allow' };
    };
    const host = hostWith([slow, slow, slow], { composition: STRICTEST });
    const t0 = Date.now();
    await host.evaluate(ctxFor('input'));
    expect(Date.now() - t0).toBeLessThan(170);
  });

  it('severity-max: a plain deny wins over everything; ties go to the lowest index', async () => {
    const host = hostWith([transform('$target.q', 1), escalate(), deny('a'), deny('b')], {
      composition: STRICTEST,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict.reason).toBe('a');
    expect(result.record.decided_by).toBe(2);
  });

  it('two transforms conflict: transform_conflict, decided_by null (on_transform_conflict: deny)', async () => {
    const host = hostWith([transform('$target.q', 1), transform('$target.q', 2)], {
      composition: STRICTEST,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict).toEqual({ decision: 'deny', reason: HOST_ERRORS.transformConflict });
    expect(result.record.decided_by).toBeNull();
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
  });

  it('on_transform_conflict: approval synthesizes a liftable deny and lets the resolver decide', async () => {
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'transform', transform: { path: '$target.q', value: 'human' } },
    });
    const composition = { profile: STRICTEST, on_transform_conflict: 'approval' } as const;
    const host = hostWith([transform('$target.q', 1), transform('$target.q', 2)], {
      composition,
      resolver,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(requests[0]).toMatchObject({
      verdict: { decision: 'deny', reason: HOST_ERRORS.transformConflict, approval: {} },
      // The resolver sees the untransformed snapshot.
      context: { target: { q: 'secret' } },
    });
    expect(result.target).toEqual({ q: 'human', n: [1, 2] });
    expect(result.record).toMatchObject({ decided_by: null, resolved_by: 'approval' });
  });

  it('on_transform_conflict: approval without a resolver stands as a deny', async () => {
    const composition = { profile: STRICTEST, on_transform_conflict: 'approval' } as const;
    const host = hostWith([transform('$target.q', 1), transform('$target.q', 2)], { composition });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.proceed).toBe(false);
    expect(result.verdict.reason).toBe(HOST_ERRORS.transformConflict);
  });

  it('a liftable-deny winner is consulted once; lower-severity transforms are not applied', async () => {
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const host = hostWith([transform('$target.q', 'lost'), escalate('a'), escalate('b')], {
      composition: STRICTEST,
      resolver,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(requests).toHaveLength(1);
    expect(result.proceed).toBe(true);
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
    expect(result.record).toMatchObject({ decided_by: 1, resolved_by: 'approval' });
  });

  it('a single winning transform that fails to apply is a deny with decided_by null', async () => {
    const host = hostWith([transform('$target.nope', 1), allow], { composition: STRICTEST });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.transformInvalid);
    expect(result.record.decided_by).toBeNull();
  });
});

describe('§7.5 parallel/unanimous', () => {
  it('allow iff every interceptor allowed', async () => {
    const result = await hostWith([allow, allow], { composition: UNANIMOUS }).evaluate(
      ctxFor('input'),
    );
    expect(result.proceed).toBe(true);
    expect(result.record).toMatchObject({
      decided_by: null,
      composition: { profile: UNANIMOUS, on_disagreement: 'deny' },
    });
    // Two transforms can never compose here, so that knob is never consulted (§10.3).
    expect(result.record.composition).not.toHaveProperty('on_transform_conflict');
  });

  for (const [what, other] of [
    ['a transform', transform('$target.q', 1)],
    ['a deny', deny()],
    ['a liftable deny', escalate()],
  ] as const) {
    it(`${what} is a disagreement: composition_disagreement, decided_by null`, async () => {
      const result = await hostWith([allow, other], { composition: UNANIMOUS }).evaluate(
        ctxFor('pre_tool_call'),
      );
      expect(result.verdict).toEqual({
        decision: 'deny',
        reason: HOST_ERRORS.compositionDisagreement,
      });
      expect(result.record.decided_by).toBeNull();
      expect(result.record.verdicts).toHaveLength(2);
    });
  }

  it('on_disagreement: approval consults the seam; a permit becomes the combined verdict', async () => {
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const composition = { profile: UNANIMOUS, on_disagreement: 'approval' } as const;
    const result = await hostWith([allow, deny()], { composition, resolver }).evaluate(
      ctxFor('input'),
    );
    expect(requests[0]).toMatchObject({
      verdict: { decision: 'deny', reason: HOST_ERRORS.compositionDisagreement, approval: {} },
    });
    expect(result.proceed).toBe(true);
    expect(result.record).toMatchObject({
      resolved_by: 'approval',
      decided_by: null,
      composition: { profile: UNANIMOUS, on_disagreement: 'approval' },
    });
  });

  it("on_disagreement: approval with a rejection yields the resolver's deny, decided_by null", async () => {
    const { resolver } = resolverOf({
      outcome: 'reject',
      verdict: { decision: 'deny', reason: 'reviewer:no' },
    });
    const composition = { profile: UNANIMOUS, on_disagreement: 'approval' } as const;
    const result = await hostWith([transform('$target.q', 1)], { composition, resolver }).evaluate(
      ctxFor('pre_tool_call'),
    );
    expect(result.proceed).toBe(false);
    expect(result.verdict).toEqual({ decision: 'deny', reason: 'reviewer:no' });
    expect(result.record).toMatchObject({ resolved_by: 'rejection', decided_by: null });
    expect(result.record.verdict).not.toHaveProperty('approval');
  });
});
