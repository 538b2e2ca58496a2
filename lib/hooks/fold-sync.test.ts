import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Interceptor, Verdict } from '@checkpoint/agent-hooks';
import { ctxFor, hostWith } from './test-helpers.ts';

/**
 * first_deny runs synchronously while interceptors answer synchronously and
 * continues asynchronously from the same place otherwise (compose-sequential.ts);
 * host.evaluate has no async frames of its own. The general path is the
 * all-asynchronous one: every interceptor returning a promise. For any
 * sequence of verdicts, any mix of sync and async answers, with and without
 * a resolver (stop and resume), the results must be identical, and the
 * interceptors must see the same contexts in the same order.
 */

const VERDICTS: Verdict[] = [
  { decision: 'allow' },
  { decision: 'allow', reason: 'ok', result_labels: ['l1'] },
  { decision: 'deny', reason: 'policy_deny' },
  { decision: 'deny', reason: 'needs_review', approval: {} },
  { decision: 'transform', transform: { path: '$target.q', value: 'rewritten' } },
  { decision: 'transform', transform: { path: '$target.missing.deep', value: 1 } },
  { decision: 'allow', warnings: [{ reason: 'w', message: 'careful' }] },
];

const RESOLVERS = [
  null,
  { outcome: 'approved' },
  { outcome: 'rejected' },
  {
    outcome: 'approved',
    verdict: { decision: 'transform', transform: { path: '$target.q', value: 'ok' } },
  },
];

interface Plan {
  verdicts: number[];
  asyncMask: boolean[];
  resolver: number;
  resume: boolean;
  point: 'pre_tool_call' | 'input';
}

const plan: fc.Arbitrary<Plan> = fc.record({
  verdicts: fc.array(fc.nat(VERDICTS.length - 1), { minLength: 1, maxLength: 5 }),
  asyncMask: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  resolver: fc.nat(RESOLVERS.length - 1),
  resume: fc.boolean(),
  point: fc.constantFrom('pre_tool_call' as const, 'input' as const),
});

async function run(p: Plan, isAsync: (i: number) => boolean) {
  const seen: string[] = [];
  const interceptors: Interceptor[] = p.verdicts.map((v, i) => (ctx) => {
    seen.push(`${i}:${JSON.stringify(ctx.target)}`);
    const verdict = structuredClone(VERDICTS[v]);
    return isAsync(i) ? Promise.resolve(verdict) : verdict;
  });
  const answer = RESOLVERS[p.resolver];
  const host = hostWith(interceptors, {
    composition: {
      profile: 'sequential/first_deny',
      on_approval: p.resume ? 'resume' : 'stop',
    },
    ...(answer
      ? {
          resolver: (req: { context_identity: string | null }) =>
            ({ ...structuredClone(answer), context_identity: req.context_identity }) as never,
        }
      : {}),
  });
  const result = await host.evaluate(ctxFor(p.point));
  return { result: JSON.parse(JSON.stringify(result)), seen };
}

describe('first_deny: the synchronous fold equals the asynchronous one', () => {
  it('for any verdict sequence, sync/async mix, resolver and on_approval', async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const general = await run(p, () => true);
        const sync = await run(p, () => false);
        const mixed = await run(p, (i) => p.asyncMask[i]);
        expect(sync).toEqual(general);
        expect(mixed).toEqual(general);
      }),
      { numRuns: 400 },
    );
  });

  it('evaluate still answers with a promise, and rejects a bad policy rather than throwing', async () => {
    const host = hostWith([() => ({ decision: 'allow' })]);
    const pending = host.evaluate(ctxFor('input'));
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).proceed).toBe(true);
    let thrown: unknown = null;
    let rejected: Promise<unknown> | null = null;
    try {
      rejected = host.evaluate(ctxFor('input'), { mode: 'nonsense' } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeNull();
    await expect(rejected).rejects.toMatchObject({ code: 'config_invalid' });
  });
});
