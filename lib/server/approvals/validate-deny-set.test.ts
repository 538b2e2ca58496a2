import { describe, expect, it } from 'vitest';
import { denySetOf } from '@checkpoint/agent-hooks';
import { type ApprovalConsultation, createHost, Verdict } from '@checkpoint/agent-hooks';
import { ctxFor } from '@/lib/hooks/test-helpers';
import { IntakeError } from './errors';
import { parseDenySet } from './validate-deny-set';

const GOOD = {
  composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
  interceptors_registered: 3,
  verdicts: [
    { index: 0, decision: 'allow', name: 'pii' },
    { index: 1, decision: 'deny', reason: 'amount_over_threshold', name: 'limits' },
  ],
  decided_by: 1,
  fold_truncated: true,
};

function refusal(value: unknown): string {
  try {
    parseDenySet(value);
  } catch (err) {
    expect(err).toBeInstanceOf(IntakeError);
    expect((err as IntakeError).code).toBe('deny_set_invalid');
    expect((err as IntakeError).status).toBe(400);
    return (err as IntakeError).message;
  }
  throw new Error('accepted');
}

const bytes = (n: number) => 'é'.repeat(n / 2);

describe('deny_set validation', () => {
  it('accepts what the engine hands a resolver, through the client shaping', async () => {
    const seen: ApprovalConsultation[] = [];
    const host = createHost({
      agent: { id: 'a', framework: 'test' },
      interceptors: [
        { name: 'n'.repeat(300), intercept: () => Verdict.allow() },
        { name: 'limits', intercept: () => Verdict.escalate(`r${'x'.repeat(400)}`) },
        { name: 'mail', intercept: () => Verdict.allow() },
      ],
      resolver: (request, _signal, consultation) => {
        if (consultation) seen.push(consultation);
        return { outcome: 'unresolved', context_identity: request.context_identity };
      },
    });
    await host.evaluate(ctxFor('pre_tool_call'));
    const sent = denySetOf(seen[0]);
    const stored = parseDenySet(JSON.parse(JSON.stringify(sent)));
    expect(stored.fold_truncated).toBe(true);
    expect(stored.decided_by).toBe(1);
    // Long names and reasons are cut to 256 bytes with …, never refused.
    expect(Buffer.byteLength(stored.verdicts[0].name ?? '', 'utf8')).toBeLessThanOrEqual(256);
    expect(stored.verdicts[1].reason?.endsWith('…')).toBe(true);
  });

  it('accepts a deny set without decided_by, and every profile with exactly its knobs', () => {
    const { decided_by: _, ...rest } = GOOD;
    expect(parseDenySet(rest).decided_by).toBeUndefined();
    for (const composition of [
      { profile: 'sequential/run_all' },
      { profile: 'parallel/strictest', on_transform_conflict: 'approval' },
      { profile: 'parallel/unanimous', on_disagreement: 'approval' },
    ]) {
      expect(parseDenySet({ ...GOOD, composition, fold_truncated: false }).composition).toEqual(
        composition,
      );
    }
  });

  it.each([
    ['not an object', []],
    ['an unknown member (payload rides along)', { ...GOOD, context: { target: 'secret' } }],
    [
      'an unknown member in a summary',
      { ...GOOD, verdicts: [{ index: 0, decision: 'deny', message: 'secret' }] },
    ],
    ['a missing member', { ...GOOD, fold_truncated: undefined }],
    [
      'an index at interceptors_registered',
      { ...GOOD, verdicts: [{ index: 3, decision: 'deny' }] },
    ],
    ['a negative index', { ...GOOD, verdicts: [{ index: -1, decision: 'deny' }] }],
    ['a fractional index', { ...GOOD, verdicts: [{ index: 0.5, decision: 'deny' }] }],
    [
      'a repeated index',
      {
        ...GOOD,
        decided_by: 0,
        verdicts: [
          { index: 0, decision: 'deny' },
          { index: 0, decision: 'deny' },
        ],
      },
    ],
    ['a decision outside §5', { ...GOOD, verdicts: [{ index: 1, decision: 'escalate' }] }],
    [
      'a reason over 256 bytes',
      { ...GOOD, verdicts: [{ index: 1, decision: 'deny', reason: bytes(258) }] },
    ],
    [
      'a name that is not a string',
      { ...GOOD, verdicts: [{ index: 1, decision: 'deny', name: 1 }] },
    ],
    [
      'more than 1000 verdicts',
      {
        ...GOOD,
        interceptors_registered: 2000,
        decided_by: null,
        verdicts: Array.from({ length: 1001 }, (_, index) => ({ index, decision: 'allow' })),
      },
    ],
    ['a profile outside §7.2', { ...GOOD, composition: { profile: 'parallel/quorum' } }],
    [
      'a knob the profile never consults (§10.3)',
      { ...GOOD, composition: { ...GOOD.composition, on_disagreement: 'deny' } },
    ],
    ['a missing knob', { ...GOOD, composition: { profile: 'sequential/first_deny' } }],
    [
      'a knob value outside §7.2',
      { ...GOOD, composition: { profile: 'sequential/first_deny', on_approval: 'maybe' } },
    ],
    ['zero interceptors', { ...GOOD, interceptors_registered: 0, verdicts: [], decided_by: null }],
    ['decided_by naming an allow', { ...GOOD, decided_by: 0 }],
    ['decided_by naming no verdict', { ...GOOD, decided_by: 2 }],
    [
      'fold_truncated in a parallel profile',
      { ...GOOD, composition: { profile: 'parallel/strictest', on_transform_conflict: 'deny' } },
    ],
    [
      'fold_truncated with every interceptor run',
      {
        ...GOOD,
        interceptors_registered: 2,
      },
    ],
  ])('refuses %s with deny_set_invalid', (_, value) => {
    expect(refusal(value)).toMatch(/^deny_set/);
  });

  it('names members, never values (§14)', () => {
    const message = refusal({
      ...GOOD,
      verdicts: [{ index: 1, decision: 'SECRET-DECISION', reason: 'x' }],
    });
    expect(message).toContain('deny_set.verdicts.0.decision');
    expect(message).not.toContain('SECRET');
  });
});
