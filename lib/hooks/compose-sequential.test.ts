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
  returns,
  transform,
} from './test-helpers.ts';

const FIRST_DENY = 'sequential/first_deny' as const;
const RUN_ALL = 'sequential/run_all' as const;

describe('§7.4 sequential/first_deny', () => {
  it('folds transforms through: each interceptor sees its predecessors’ transforms', async () => {
    const second = counted();
    const host = hostWith([
      transform('$target.q', 'one'),
      second.intercept,
      transform('$target.n', []),
    ]);
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect((second.calls[0].target as { q: string }).q).toBe('one');
    expect((second.calls[0].tool_call as { args: { q: string } }).args.q).toBe('one');
    expect(result.target).toEqual({ q: 'one', n: [] });
    // §7.3: in sequential profiles the last transform returned wins.
    expect(result.verdict.transform).toEqual({ path: '$target.n', value: [] });
    expect(result.record.decided_by).toBe(2);
    expect(result.record.fold_truncated).toBe(false);
  });

  it('the first deny short-circuits; later interceptors are never invoked', async () => {
    const later = counted();
    const result = await hostWith([allow, deny('stop_here'), later.intercept]).evaluate(
      ctxFor('input'),
    );
    expect(later.calls).toHaveLength(0);
    expect(result.proceed).toBe(false);
    expect(result.verdict).toEqual({ decision: 'deny', reason: 'stop_here' });
    expect(result.record).toMatchObject({
      decided_by: 1,
      fold_truncated: true,
      interceptors_registered: 3,
    });
    expect(result.record.verdicts).toEqual([
      { index: 0, decision: 'allow' },
      { index: 1, decision: 'deny', reason: 'stop_here' },
    ]);
  });

  it('a deny at the last interceptor truncates nothing', async () => {
    const result = await hostWith([allow, deny()]).evaluate(ctxFor('input'));
    expect(result.record.fold_truncated).toBe(false);
  });

  it('a liftable deny short-circuits too, and with no resolver stands as a plain deny (§9)', async () => {
    const later = counted();
    const result = await hostWith([escalate(), later.intercept]).evaluate(ctxFor('input'));
    expect(later.calls).toHaveLength(0);
    expect(result.proceed).toBe(false);
    expect(result.record.resolved_by).toBeUndefined();
    expect(result.record.verdict.approval).toEqual({});
  });

  it('a failed fold transform becomes the deny and short-circuits, decided_by null', async () => {
    const later = counted();
    const result = await hostWith([transform('$target.missing', 1), later.intercept]).evaluate(
      ctxFor('pre_tool_call'),
    );
    expect(later.calls).toHaveLength(0);
    expect(result.verdict.reason).toBe(HOST_ERRORS.transformInvalid);
    expect(result.record).toMatchObject({ decided_by: null, fold_truncated: true });
  });

  it('a deny after a transform discards it; enforced_identity still reflects the fold', async () => {
    const ctx = ctxFor('pre_tool_call');
    const result = await hostWith([transform('$target.q', 'x'), deny()]).evaluate(ctx);
    expect(result.proceed).toBe(false);
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
    expect(result.record.enforced_identity).not.toBe(result.record.input_identity);
  });

  it('with only allows the combined verdict is allow and decided_by null', async () => {
    const result = await hostWith([allow, allow]).evaluate(ctxFor('input'));
    expect(result.verdict).toEqual({ decision: 'allow' });
    expect(result.record.decided_by).toBeNull();
    expect(result.record.composition).toEqual({ profile: FIRST_DENY, on_approval: 'stop' });
  });

  describe('on_approval: "stop"', () => {
    it('a permit resolution ends the emission; later interceptors never run', async () => {
      const later = counted();
      const { resolver, requests } = resolverOf({
        outcome: 'approve',
        verdict: { decision: 'allow' },
      });
      const host = hostWith([escalate(), later.intercept], { resolver });
      const result = await host.evaluate(ctxFor('input'));
      expect(requests).toHaveLength(1);
      expect(later.calls).toHaveLength(0);
      expect(result.proceed).toBe(true);
      expect(result.record).toMatchObject({
        decided_by: 0,
        fold_truncated: true,
        resolved_by: 'approval',
      });
    });

    it('a transform resolution is applied on top of the fold', async () => {
      const { resolver } = resolverOf({
        outcome: 'approve',
        verdict: { decision: 'transform', transform: { path: '$target.q', value: 'approved' } },
      });
      const host = hostWith([transform('$target.n', [0]), escalate()], { resolver });
      const result = await host.evaluate(ctxFor('pre_tool_call'));
      expect(result.target).toEqual({ q: 'approved', n: [0] });
      expect(result.record.decided_by).toBe(1);
    });
  });

  describe('on_approval: "resume"', () => {
    const composition = { profile: FIRST_DENY, on_approval: 'resume' } as const;

    it('a permit substitutes for the deny and the fold continues; each liftable deny is consulted in turn', async () => {
      const later = counted();
      const { resolver, requests } = resolverOf({
        outcome: 'approve',
        verdict: { decision: 'allow' },
      });
      const host = hostWith([escalate('a'), later.intercept, escalate('b')], {
        resolver,
        composition,
      });
      const result = await host.evaluate(ctxFor('input'));
      expect(requests).toHaveLength(2);
      expect(later.calls).toHaveLength(1);
      expect(result.proceed).toBe(true);
      expect(result.record).toMatchObject({
        resolved_by: 'approval',
        fold_truncated: false,
        decided_by: 2,
        composition,
      });
    });

    it('a later plain deny still ends the emission, fold_truncated if anything was skipped', async () => {
      const { resolver } = resolverOf({ outcome: 'approve', verdict: { decision: 'allow' } });
      const host = hostWith([escalate(), deny('hard'), allow], { resolver, composition });
      const result = await host.evaluate(ctxFor('input'));
      expect(result.verdict.reason).toBe('hard');
      expect(result.record).toMatchObject({
        decided_by: 1,
        fold_truncated: true,
        resolved_by: 'approval',
      });
    });

    it('a transform resolution folds into what later interceptors see', async () => {
      const later = counted();
      const { resolver } = resolverOf({
        outcome: 'approve',
        verdict: { decision: 'transform', transform: { path: '$target.q', value: 'ok' } },
      });
      const host = hostWith([escalate(), later.intercept], { resolver, composition });
      const result = await host.evaluate(ctxFor('pre_tool_call'));
      expect((later.calls[0].target as { q: string }).q).toBe('ok');
      expect(result.target).toEqual({ q: 'ok', n: [1, 2] });
    });
  });

  for (const composition of [FIRST_DENY, { profile: FIRST_DENY, on_approval: 'resume' as const }]) {
    it(`a rejection makes the resolver's deny the combined verdict (${JSON.stringify(composition)})`, async () => {
      const { resolver } = resolverOf({
        outcome: 'reject',
        verdict: { decision: 'deny', reason: 'no', message: 'not this one' },
      });
      const later = counted();
      const host = hostWith([escalate('why'), later.intercept], { resolver, composition });
      const result = await host.evaluate(ctxFor('input'));
      expect(later.calls).toHaveLength(0);
      expect(result.proceed).toBe(false);
      // §9/§7.6: the reviewer's words reach the host; the trigger's approval block does not.
      expect(result.verdict).toEqual({ decision: 'deny', reason: 'no', message: 'not this one' });
      expect(result.record).toMatchObject({ resolved_by: 'rejection', decided_by: 0 });
      expect(result.record.verdict).not.toHaveProperty('approval');
    });
  }
});

describe('§7.4 sequential/run_all', () => {
  it('runs every interceptor regardless of intermediate denies; severity-max aggregate', async () => {
    const later = counted();
    const host = hostWith([escalate('lift'), deny('hard'), later.intercept, deny('also')], {
      composition: RUN_ALL,
    });
    const result = await host.evaluate(ctxFor('input'));
    expect(later.calls).toHaveLength(1);
    expect(result.verdict.reason).toBe('hard');
    expect(result.record).toMatchObject({
      decided_by: 1,
      fold_truncated: false,
      composition: { profile: RUN_ALL },
    });
    expect(result.record.composition).not.toHaveProperty('on_approval');
    expect(result.record.verdicts).toHaveLength(4);
  });

  it('a liftable deny outranks a transform, and a transform outranks allow', async () => {
    let result = await hostWith([transform('$target.q', 1), escalate()], {
      composition: RUN_ALL,
    }).evaluate(ctxFor('pre_tool_call'));
    expect(result.record.decided_by).toBe(1);
    expect(result.proceed).toBe(false);
    result = await hostWith([allow, transform('$target.q', 1), allow], {
      composition: RUN_ALL,
    }).evaluate(ctxFor('pre_tool_call'));
    expect(result.record.decided_by).toBe(1);
    expect(result.target).toEqual({ q: 1, n: [1, 2] });
  });

  it('ties between block verdicts go to the lowest index', async () => {
    const result = await hostWith([allow, deny('first'), deny('second')], {
      composition: RUN_ALL,
    }).evaluate(ctxFor('input'));
    expect(result.record.decided_by).toBe(1);
  });

  it('transforms fold for visibility; the last transform wins', async () => {
    const seen = counted();
    const host = hostWith(
      [transform('$target.q', 'a'), seen.intercept, transform('$target.q', 'b')],
      {
        composition: RUN_ALL,
      },
    );
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect((seen.calls[0].target as { q: string }).q).toBe('a');
    expect(result.target).toEqual({ q: 'b', n: [1, 2] });
    expect(result.record.decided_by).toBe(2);
  });

  it('a failed fold transform short-circuits even in run_all', async () => {
    const later = counted();
    const host = hostWith([transform('$target[0]', 1), later.intercept], { composition: RUN_ALL });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(later.calls).toHaveLength(0);
    expect(result.verdict.reason).toBe(HOST_ERRORS.transformInvalid);
    expect(result.record).toMatchObject({ fold_truncated: true, decided_by: null });
  });

  it('consults the seam once, only when every deny is liftable; a permit lifts the whole set', async () => {
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const host = hostWith([escalate('a'), transform('$target.q', 'folded'), escalate('b')], {
      composition: RUN_ALL,
      resolver,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(requests).toHaveLength(1);
    // The request shows the folded context (§9) and the winning liftable deny.
    expect(requests[0]).toMatchObject({
      verdict: { reason: 'a' },
      context: { target: { q: 'folded' } },
    });
    expect(result.proceed).toBe(true);
    expect(result.target).toEqual({ q: 'folded', n: [1, 2] });
    expect(result.record).toMatchObject({ resolved_by: 'approval', decided_by: 0 });
  });

  it('a single plain deny makes lifting pointless: no consultation', async () => {
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const host = hostWith([escalate(), deny()], { composition: RUN_ALL, resolver });
    const result = await host.evaluate(ctxFor('input'));
    expect(requests).toHaveLength(0);
    expect(result.record.resolved_by).toBeUndefined();
  });

  it('a transform resolution is applied on top of the folded context', async () => {
    const { resolver } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'transform', transform: { path: '$target.n', value: null } },
    });
    const host = hostWith([transform('$target.q', 'f'), escalate()], {
      composition: RUN_ALL,
      resolver,
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.target).toEqual({ q: 'f', n: null });
  });

  it('an unresolved resolution leaves a deny standing: approval_unresolved', async () => {
    const { resolver } = resolverOf({ outcome: 'unresolved' });
    const result = await hostWith([escalate()], { composition: RUN_ALL, resolver }).evaluate(
      ctxFor('input'),
    );
    expect(result.verdict.reason).toBe(HOST_ERRORS.approvalUnresolved);
    expect(result.record).toMatchObject({ resolved_by: 'rejection', decided_by: 0 });
  });
});

describe('§7.3 aggregation metadata', () => {
  it('unions warnings in first-seen order, deduplicated on reason and message', async () => {
    const host = hostWith(
      [
        returns({ decision: 'allow', warnings: [{ reason: 'a', message: 'm' }, { reason: 'b' }] }),
        returns({ decision: 'allow', warnings: [{ reason: 'a', message: 'm' }, { reason: 'a' }] }),
      ],
      { composition: RUN_ALL },
    );
    const result = await host.evaluate(ctxFor('input'));
    expect(result.verdict.warnings).toEqual([
      { reason: 'a', message: 'm' },
      { reason: 'b' },
      { reason: 'a' },
    ]);
  });

  it('keeps warnings from denies too, but result_labels only from permits and only when proceeding', async () => {
    const host = hostWith(
      [
        returns({ decision: 'allow', result_labels: ['x', 'y'] }),
        returns({ decision: 'allow', result_labels: ['y', 'z'] }),
      ],
      { composition: RUN_ALL },
    );
    const ok = await host.evaluate(ctxFor('input'));
    expect(ok.verdict.result_labels).toEqual(['x', 'y', 'z']);
    expect(ok.resultLabels).toEqual(['x', 'y', 'z']);

    const denied = await hostWith(
      [
        returns({ decision: 'allow', result_labels: ['x'] }),
        returns({ decision: 'deny', warnings: [{ reason: 'w' }], result_labels: ['d'] }),
      ],
      { composition: RUN_ALL },
    ).evaluate(ctxFor('input'));
    expect(denied.verdict.warnings).toEqual([{ reason: 'w' }]);
    expect(denied.verdict.result_labels).toBeUndefined();
    expect(denied.resultLabels).toEqual([]);
    expect(denied.record.verdict.result_labels).toBeUndefined();
  });
});
