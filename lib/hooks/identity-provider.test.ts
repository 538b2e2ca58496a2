import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentContext,
  buildContext,
  createHost,
  customIdentityProvider,
  HOST_ERRORS,
  HooksConfigError,
  jcsSha256,
} from '@checkpoint/agent-hooks';
import { digestContext } from '@/lib/hooks/digest';
import { AGENT, allow, ctxFor, escalate, hostWith, resolverOf, transform } from './test-helpers.ts';

describe('§10.1 identity providers', () => {
  it('jcs-sha256 is the default, and records name it', async () => {
    const ctx = ctxFor('input');
    const result = await hostWith([allow]).evaluate(ctx);
    expect(result.record.identity_provider).toBe('jcs-sha256');
    expect(result.record.input_identity).toBe(jcsSha256.compute(ctx));
  });

  it('null: records carry null identities and a null provider', async () => {
    const result = await hostWith([transform('$target.q', 1)], { identityProvider: null }).evaluate(
      ctxFor('pre_tool_call'),
    );
    expect(result.record).toMatchObject({
      identity_provider: null,
      input_identity: null,
      enforced_identity: null,
    });
    expect(result.proceed).toBe(true);
  });

  it('a custom provider is called on the context before dispatch and after composition', async () => {
    let calls = 0;
    const provider = customIdentityProvider('hmac-sha256-k1', (ctx) => {
      calls++;
      return `k1:${(ctx as AgentContext).sequence}:${JSON.stringify((ctx as AgentContext).target).length}`;
    });
    const result = await hostWith([transform('$target.q', 'longer value')], {
      identityProvider: provider,
    }).evaluate(ctxFor('pre_tool_call'));
    expect(calls).toBe(2);
    expect(result.record.identity_provider).toBe('hmac-sha256-k1');
    expect(result.record.input_identity).not.toBe(result.record.enforced_identity);
  });

  it('a provider that raises (ctk-fault) fails closed as context_invalid before any interceptor runs', async () => {
    let ran = false;
    const provider = customIdentityProvider('ctk-fault', () => {
      throw new Error('SECRET');
    });
    const interceptor = () => {
      ran = true;
      return { decision: 'allow' };
    };
    const result = await hostWith([interceptor], {
      identityProvider: provider,
    }).evaluate(ctxFor('input'));
    expect(ran).toBe(false);
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.record).toMatchObject({
      input_identity: null,
      enforced_identity: null,
      identity_provider: 'ctk-fault',
      decided_by: null,
    });
    expect(JSON.stringify(result.record)).not.toContain('SECRET');
  });

  it('a provider returning a non-string fails closed too', async () => {
    const provider = { name: 'bad-provider', compute: () => 42 as unknown as string };
    const result = await hostWith([allow], { identityProvider: provider }).evaluate(
      ctxFor('input'),
    );
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });

  for (const name of ['jcs-custom', 'JCS', 'Upper', '1abc', 'has space', '']) {
    it(`rejects the provider name "${name}" (§10.1 name rules)`, () => {
      expect(() =>
        createHost({ agent: AGENT, identityProvider: { name, compute: () => 'x' } }),
      ).toThrow(HooksConfigError);
    });
  }

  it('a custom provider echoes through the approval seam', async () => {
    const provider = customIdentityProvider('request-bound', () => 'req-1');
    const { resolver, requests } = resolverOf({
      outcome: 'approve',
      verdict: { decision: 'allow' },
    });
    const result = await hostWith([escalate()], { identityProvider: provider, resolver }).evaluate(
      ctxFor('input'),
    );
    expect((requests[0] as { context_identity: string }).context_identity).toBe('req-1');
    expect(result.proceed).toBe(true);
  });

  it('jcs-sha256 rejects an integer beyond 2^53 in the projection with a remediation message', async () => {
    const ctx = buildContext('pre_tool_call', ctxFor('input'), {
      tool_call: { id: 'c', name: 't', args: { id: 2 ** 60 } },
    });
    const result = await hostWith([allow]).evaluate(ctx);
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.verdict.message).toMatch(/2\^53/);
  });

  it('enforced_identity equals input_identity when nothing was transformed', async () => {
    const result = await hostWith([allow]).evaluate(ctxFor('pre_tool_call'));
    expect(result.record.enforced_identity).toBe(result.record.input_identity);
  });
});

describe('§10.2 the one-pass digest equals jcs-sha256 byte for byte', () => {
  const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<unknown>;
  const limits = { maxBytes: 5 * 1024 * 1024, maxDepth: 128 };

  it('for arbitrary targets, optional fields and extensions at every point', () => {
    fc.assert(
      fc.property(
        json,
        json,
        fc.dictionary(fc.string(), json),
        fc.string(),
        (args, value, ext, extraKey) => {
          const contexts = [
            buildContext('pre_tool_call', ctxFor('input'), {
              tool_call: { id: 'c', name: 't', args: { v: args }, content_hash: 'sha256:00' },
              [extraKey]: value,
            }),
            buildContext('post_tool_call', ctxFor('input'), {
              tool_call: { id: 'c', name: 't', args: {} },
              tool_result: { value, is_error: false, duration_ms: 3.5 },
              extensions: { mine: ext },
            }),
            buildContext('output', ctxFor('input', { tenant: { id: 't' } }), {
              output: { content: { args } },
            }),
          ];
          for (const ctx of contexts) {
            let expected: string | null;
            try {
              expected = jcsSha256.compute(ctx);
            } catch {
              expected = null;
            }
            const d = digestContext(ctx, limits, { measure: true });
            if (d) {
              expect(d.identity).toBe(expected);
              expect(d.bytes).toBe(Buffer.byteLength(JSON.stringify(ctx)));
            }
            // It may decline (then the slow path decides), but never accept what jcs-sha256 rejects.
            if (expected === null) expect(d).toBeNull();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('declines a context jcs-sha256 or the value domain would reject', () => {
    const bad = buildContext('pre_tool_call', ctxFor('input'), {
      tool_call: { id: 'c', name: 't', args: { n: Number.NaN } },
    });
    expect(digestContext(bad, limits)).toBeNull();
    const badOptional = ctxFor('input', { budgets: { cost_usd: Number.POSITIVE_INFINITY } });
    expect(digestContext(badOptional, limits)).toBeNull();
    const big = ctxFor('input', { extensions: { mine: 'x'.repeat(2000) } });
    expect(digestContext(big, { maxBytes: 1000, maxDepth: 128 })).toBeNull();
  });
});
