import { describe, expect, it } from 'vitest';
import {
  type ApprovalRequest,
  canonicalJson,
  HOST_ERRORS,
  identityOfCanonical,
  jcsSha256,
  projectForIdentity,
  redactPaths,
  validateResolution,
} from '@checkpoint/agent-hooks';
import { ctxFor, escalate, hostWith, resolverOf, sleep } from './test-helpers.ts';

const ID = 'sha256:abc';
const permit = { decision: 'allow' } as const;

describe('§9 resolution validation order (one test per step)', () => {
  it('step 1, echo rule first: a mismatch wins even over a malformed outcome', () => {
    expect(
      validateResolution({ outcome: 'bogus', context_identity: 'sha256:other' }, ID),
    ).toMatchObject({
      ok: false,
      reason: HOST_ERRORS.approvalIdentityMismatch,
    });
  });

  it('step 1, null echoes as null, byte for byte; absent is not null', () => {
    expect(validateResolution({ outcome: 'unresolved', context_identity: null }, null).ok).toBe(
      true,
    );
    expect(validateResolution({ outcome: 'unresolved' }, null)).toMatchObject({
      reason: HOST_ERRORS.approvalIdentityMismatch,
    });
    expect(
      validateResolution({ outcome: 'unresolved', context_identity: 'SHA256:ABC' }, ID),
    ).toMatchObject({
      reason: HOST_ERRORS.approvalIdentityMismatch,
    });
  });

  it('step 2, outcome outside the closed set: approval_resolver_failed (before verdict validity)', () => {
    expect(
      validateResolution(
        { outcome: 'maybe', context_identity: ID, verdict: { decision: 'bogus' } },
        ID,
      ),
    ).toMatchObject({ reason: HOST_ERRORS.approvalResolverFailed });
  });

  it('step 2, verdict present exactly when outcome != unresolved', () => {
    expect(validateResolution({ outcome: 'approve', context_identity: ID }, ID)).toMatchObject({
      reason: HOST_ERRORS.approvalResolverFailed,
    });
    expect(
      validateResolution({ outcome: 'unresolved', context_identity: ID, verdict: permit }, ID),
    ).toMatchObject({ reason: HOST_ERRORS.approvalResolverFailed });
  });

  it('step 3, the carried verdict fails §5: verdict_invalid (before consistency)', () => {
    expect(
      validateResolution(
        { outcome: 'reject', context_identity: ID, verdict: { decision: 'allow', approval: {} } },
        ID,
      ),
    ).toMatchObject({ reason: HOST_ERRORS.verdictInvalid });
  });

  it('step 4, approve must carry a permit and reject a deny: verdict_invalid', () => {
    expect(
      validateResolution(
        { outcome: 'approve', context_identity: ID, verdict: { decision: 'deny' } },
        ID,
      ),
    ).toMatchObject({ reason: HOST_ERRORS.verdictInvalid });
    expect(
      validateResolution({ outcome: 'reject', context_identity: ID, verdict: permit }, ID),
    ).toMatchObject({
      reason: HOST_ERRORS.verdictInvalid,
    });
  });

  it('accepts the three well-formed shapes', () => {
    expect(
      validateResolution({ outcome: 'approve', context_identity: ID, verdict: permit }, ID),
    ).toEqual({
      ok: true,
      outcome: 'approve',
      verdict: permit,
    });
    expect(
      validateResolution(
        { outcome: 'reject', context_identity: ID, verdict: { decision: 'deny' } },
        ID,
      ).ok,
    ).toBe(true);
    expect(validateResolution({ outcome: 'unresolved', context_identity: ID }, ID)).toEqual({
      ok: true,
      outcome: 'unresolved',
    });
  });

  it('a resolution that is not an object is a resolver failure', () => {
    expect(validateResolution('approve', ID)).toMatchObject({
      reason: HOST_ERRORS.approvalResolverFailed,
    });
  });
});

describe('§9 consulting the seam', () => {
  it('sends {context_identity, interception_point, verdict, context}; identity is the provider over the context', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    const ctx = ctxFor('pre_tool_call');
    await hostWith([escalate('why')], { resolver }).evaluate(ctx);
    const req = requests[0] as ApprovalRequest;
    expect(Object.keys(req).sort()).toEqual([
      'context',
      'context_identity',
      'interception_point',
      'verdict',
    ]);
    expect(req.interception_point).toBe('pre_tool_call');
    expect(req.verdict).toEqual({ decision: 'deny', reason: 'why', approval: {} });
    expect(req.context).toEqual(JSON.parse(JSON.stringify(ctx)));
    expect(req.context_identity).toBe(jcsSha256.compute(ctx));
  });

  it('the resolver gets its own copy; mutating it changes nothing', async () => {
    const ctx = ctxFor('pre_tool_call');
    const resolver = (req: ApprovalRequest) => {
      (req.context.target as { q: string }).q = 'resolver-was-here';
      return {
        outcome: 'approve' as const,
        context_identity: req.context_identity,
        verdict: permit,
      };
    };
    const result = await hostWith([escalate()], { resolver }).evaluate(ctx);
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
  });

  const failures: Array<[string, (req: ApprovalRequest) => unknown, string]> = [
    [
      'raises',
      () => {
        throw new Error('boom');
      },
      HOST_ERRORS.approvalResolverFailed,
    ],
    [
      'rejects its promise',
      async () => Promise.reject(new Error('x')),
      HOST_ERRORS.approvalResolverFailed,
    ],
    [
      'answers unresolved',
      (r) => ({ outcome: 'unresolved', context_identity: r.context_identity }),
      HOST_ERRORS.approvalUnresolved,
    ],
    [
      'violates the echo rule',
      () => ({ outcome: 'approve', context_identity: 'sha256:forged', verdict: permit }),
      HOST_ERRORS.approvalIdentityMismatch,
    ],
    [
      'approves with a deny',
      (r) => ({
        outcome: 'approve',
        context_identity: r.context_identity,
        verdict: { decision: 'deny' },
      }),
      HOST_ERRORS.verdictInvalid,
    ],
    [
      'returns a non-JSON value',
      (r) => ({
        outcome: 'approve',
        context_identity: r.context_identity,
        verdict: { decision: 'allow', message: Symbol('x') },
      }),
      HOST_ERRORS.approvalResolverFailed,
    ],
  ];
  for (const [what, resolver, reason] of failures) {
    it(`a resolver that ${what} fails closed: ${reason}, resolved_by rejection`, async () => {
      const result = await hostWith([escalate()], { resolver: resolver as never }).evaluate(
        ctxFor('input'),
      );
      expect(result.proceed).toBe(false);
      expect(result.verdict.reason).toBe(reason);
      expect(result.record).toMatchObject({ resolved_by: 'rejection', decided_by: 0 });
    });
  }

  it('a resolver past its own (separately configured) timeout fails closed', async () => {
    const resolver = async (r: ApprovalRequest) => {
      await sleep(100);
      return { outcome: 'approve' as const, context_identity: r.context_identity, verdict: permit };
    };
    const host = hostWith([escalate()], {
      resolver,
      resolverTimeoutMs: 20,
      interceptorTimeoutMs: 5,
    });
    const result = await host.evaluate(ctxFor('input'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.approvalResolverFailed);
    const patient = hostWith([escalate()], {
      resolver,
      resolverTimeoutMs: 1000,
      interceptorTimeoutMs: 5,
    });
    expect((await patient.evaluate(ctxFor('input'))).proceed).toBe(true);
  });

  it('is never consulted at agent_shutdown (§6.1a)', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    const result = await hostWith([escalate()], { resolver }).evaluate(ctxFor('agent_shutdown'));
    expect(requests).toHaveLength(0);
    expect(result.verdict.decision).toBe('deny');
    expect(result.record.resolved_by).toBeUndefined();
  });

  it('is never consulted in evaluate_only (§8)', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    const result = await hostWith([escalate()], { resolver, mode: 'evaluate_only' }).evaluate(
      ctxFor('input'),
    );
    expect(requests).toHaveLength(0);
    expect(result.proceed).toBe(true);
    expect(result.record.resolved_by).toBeUndefined();
  });

  it('with a null provider the request identity is null and must echo as null', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    const result = await hostWith([escalate()], { resolver, identityProvider: null }).evaluate(
      ctxFor('input'),
    );
    expect((requests[0] as ApprovalRequest).context_identity).toBeNull();
    expect(result.proceed).toBe(true);
  });
});

describe('§9 redaction seam', () => {
  const redactor = redactPaths(['$target.q', '$target.missing'], { namespace: 'myhost' });

  it('the resolver sees the redacted context, mirrored into the aliased field, with extensions.<host>.redacted', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    await hostWith([escalate()], { resolver, redactor }).evaluate(ctxFor('pre_tool_call'));
    const req = requests[0] as ApprovalRequest;
    expect(req.context.target).toEqual({ q: '[redacted]', n: [1, 2] });
    expect((req.context.tool_call as { args: unknown }).args).toEqual({
      q: '[redacted]',
      n: [1, 2],
    });
    expect(req.context.extensions).toEqual({ myhost: { redacted: ['$target.q'] } });
    expect(JSON.stringify(req)).not.toContain('secret');
  });

  it('the request identity is computed over the redacted context; records keep the enforcement identities', async () => {
    let recomputed: string | null = null;
    const resolver = (req: ApprovalRequest) => {
      recomputed = identityOfCanonical(canonicalJson(projectForIdentity(req.context)));
      return { outcome: 'approve' as const, context_identity: recomputed, verdict: permit };
    };
    const ctx = ctxFor('pre_tool_call');
    const result = await hostWith([escalate()], { resolver, redactor }).evaluate(ctx);
    expect(result.proceed).toBe(true);
    expect(recomputed).not.toBe(jcsSha256.compute(ctx));
    expect(result.record.input_identity).toBe(jcsSha256.compute(ctx));
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
  });

  it('a redactor that raises fails the consultation closed: approval_resolver_failed', async () => {
    const { resolver, requests } = resolverOf({ outcome: 'approve', verdict: permit });
    const broken = () => {
      throw new Error('no');
    };
    const result = await hostWith([escalate()], { resolver, redactor: broken }).evaluate(
      ctxFor('input'),
    );
    expect(requests).toHaveLength(0);
    expect(result.verdict.reason).toBe(HOST_ERRORS.approvalResolverFailed);
    expect(result.record.resolved_by).toBe('rejection');
  });
});
