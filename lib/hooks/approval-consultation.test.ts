import { describe, expect, it } from 'vitest';
import type {
  ApprovalConsultation,
  ApprovalRequest,
  ApprovalResolution,
  Composition,
  InterceptorRegistration,
} from '@checkpoint/agent-hooks';
import { allow, ctxFor, deny, escalate, hostWith, returns, transform } from './test-helpers.ts';

const approve = { decision: 'allow' } as const;

/** A resolver that approves and keeps what it was handed beside each request. */
function watching(
  answer: { outcome: 'approve' | 'reject'; verdict: unknown } = {
    outcome: 'approve',
    verdict: approve,
  },
) {
  const seen: { request: ApprovalRequest; consultation: ApprovalConsultation | undefined }[] = [];
  const resolver = (
    request: ApprovalRequest,
    _signal: AbortSignal,
    consultation?: ApprovalConsultation,
  ): ApprovalResolution => {
    seen.push({ request: JSON.parse(JSON.stringify(request)), consultation });
    return { ...structuredClone(answer), context_identity: request.context_identity } as never;
  };
  return { resolver, seen };
}

const named = (name: string, intercept: InterceptorRegistration['intercept']) => ({
  name,
  intercept,
});

async function emit(
  interceptors: InterceptorRegistration[],
  composition: Composition,
  answer?: Parameters<typeof watching>[0],
) {
  const { resolver, seen } = watching(answer);
  const host = hostWith(interceptors, { composition, resolver });
  const result = await host.evaluate(ctxFor('pre_tool_call'));
  return { result, seen };
}

describe('the consultation handed to the resolver beside the §9 request', () => {
  it('§7.4 first_deny "stop": the verdicts so far, the consulted index, fold_truncated true (§10.3)', async () => {
    const { result, seen } = await emit(
      [
        named('pii', allow),
        named('limits', escalate('amount_over_threshold')),
        named('mail', allow),
      ],
      { profile: 'sequential/first_deny', on_approval: 'stop' },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0].consultation).toEqual({
      composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
      interceptors_registered: 3,
      verdicts: [
        { index: 0, decision: 'allow', name: 'pii' },
        { index: 1, decision: 'deny', reason: 'amount_over_threshold', name: 'limits' },
      ],
      decided_by: 1,
      fold_truncated: true,
    });
    // Known at consultation time what the record says afterwards.
    expect(result.record.verdicts).toEqual(seen[0].consultation?.verdicts);
    expect(result.record.fold_truncated).toBe(true);
    expect(result.record.composition).toEqual(seen[0].consultation?.composition);
  });

  it('the §9 request keeps exactly its four members', async () => {
    const { seen } = await emit([named('limits', escalate())], {
      profile: 'sequential/first_deny',
    });
    expect(Object.keys(seen[0].request).sort()).toEqual([
      'context',
      'context_identity',
      'interception_point',
      'verdict',
    ]);
  });

  it('§7.4 "stop" at the last interceptor skips nothing: fold_truncated false; the default knob is filled in (§7.2)', async () => {
    const { seen } = await emit([named('a', allow), named('b', escalate())], {
      profile: 'sequential/first_deny',
    });
    expect(seen[0].consultation).toMatchObject({
      composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
      fold_truncated: false,
      decided_by: 1,
    });
  });

  it('§7.4 "stop": a rejection skips the later interceptors too, so fold_truncated is true either way', async () => {
    const { result, seen } = await emit(
      [named('a', escalate()), named('b', allow)],
      { profile: 'sequential/first_deny' },
      { outcome: 'reject', verdict: { decision: 'deny', reason: 'no' } },
    );
    expect(seen[0].consultation?.fold_truncated).toBe(true);
    expect(result.record.fold_truncated).toBe(true);
  });

  it('§7.4 "resume": each consultation sees the verdicts returned so far and skips nothing', async () => {
    const { result, seen } = await emit(
      [named('a', escalate('first')), named('b', allow), named('c', escalate('second'))],
      { profile: 'sequential/first_deny', on_approval: 'resume' },
    );
    expect(seen.map((s) => s.consultation)).toEqual([
      {
        composition: { profile: 'sequential/first_deny', on_approval: 'resume' },
        interceptors_registered: 3,
        verdicts: [{ index: 0, decision: 'deny', reason: 'first', name: 'a' }],
        decided_by: 0,
        fold_truncated: false,
      },
      {
        composition: { profile: 'sequential/first_deny', on_approval: 'resume' },
        interceptors_registered: 3,
        verdicts: [
          { index: 0, decision: 'deny', reason: 'first', name: 'a' },
          { index: 1, decision: 'allow', name: 'b' },
          { index: 2, decision: 'deny', reason: 'second', name: 'c' },
        ],
        decided_by: 2,
        fold_truncated: false,
      },
    ]);
    expect(result.proceed).toBe(true);
  });

  it('§7.4 run_all: consulted once after every interceptor ran; the lowest liftable deny is consulted (§7.3)', async () => {
    const { seen } = await emit(
      [named('a', allow), named('b', escalate('b_review')), named('c', escalate('c_review'))],
      { profile: 'sequential/run_all' },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0].consultation).toEqual({
      composition: { profile: 'sequential/run_all' },
      interceptors_registered: 3,
      verdicts: [
        { index: 0, decision: 'allow', name: 'a' },
        { index: 1, decision: 'deny', reason: 'b_review', name: 'b' },
        { index: 2, decision: 'deny', reason: 'c_review', name: 'c' },
      ],
      decided_by: 1,
      fold_truncated: false,
    });
  });

  it('§7.5 strictest: every verdict of the snapshot, payload-free (a losing transform shows no value)', async () => {
    const { seen } = await emit(
      [
        named('scrub', transform('$target.q', 'SECRET-VALUE')),
        named('limits', escalate('review')),
        named('ok', returns({ decision: 'allow', message: 'SECRET-MESSAGE' })),
      ],
      { profile: 'parallel/strictest' },
    );
    expect(seen[0].consultation).toEqual({
      composition: { profile: 'parallel/strictest', on_transform_conflict: 'deny' },
      interceptors_registered: 3,
      verdicts: [
        { index: 0, decision: 'transform', name: 'scrub' },
        { index: 1, decision: 'deny', reason: 'review', name: 'limits' },
        { index: 2, decision: 'allow', name: 'ok' },
      ],
      decided_by: 1,
      fold_truncated: false,
    });
    expect(JSON.stringify(seen[0].consultation)).not.toMatch(/SECRET|"q"/);
  });

  it('§7.5/§7.6 unanimous "approval": a synthesized deny is consulted with decided_by null', async () => {
    const { seen } = await emit([named('a', allow), named('b', deny('nope'))], {
      profile: 'parallel/unanimous',
      on_disagreement: 'approval',
    });
    expect(seen[0].request.verdict.reason).toBe('host_error:composition_disagreement');
    expect(seen[0].consultation).toEqual({
      composition: { profile: 'parallel/unanimous', on_disagreement: 'approval' },
      interceptors_registered: 2,
      verdicts: [
        { index: 0, decision: 'allow', name: 'a' },
        { index: 1, decision: 'deny', reason: 'nope', name: 'b' },
      ],
      decided_by: null,
      fold_truncated: false,
    });
  });

  it('unnamed interceptors are summarized without a name (§10.3 name is optional)', async () => {
    const { seen } = await emit([{ intercept: escalate('x') }], {
      profile: 'sequential/first_deny',
    });
    expect(seen[0].consultation?.verdicts).toEqual([{ index: 0, decision: 'deny', reason: 'x' }]);
  });

  it('a resolver that changes what it was handed changes nothing the engine records', async () => {
    const host = hostWith([named('a', escalate()), named('b', allow)], {
      resolver: (request, _signal, consultation) => {
        if (consultation) {
          consultation.verdicts.push({ index: 9, decision: 'allow' });
          consultation.composition.profile = 'parallel/strictest';
        }
        return { outcome: 'approve', context_identity: request.context_identity, verdict: approve };
      },
    });
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.record.verdicts).toEqual([
      { index: 0, decision: 'deny', reason: 'needs_review', name: 'a' },
    ]);
    expect(result.record.composition.profile).toBe('sequential/first_deny');
  });
});
