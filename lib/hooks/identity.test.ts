import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HooksConfigError, ValueDomainError } from './errors.ts';
import {
  customIdentityProvider,
  identityOfCanonical,
  isContentDerived,
  jcsSha256,
  projectForIdentity,
} from './identity.ts';
import { parseJsonText } from './json-text.ts';

const preToolCall = () => ({
  spec: 'agent-hooks/0.1',
  interception_point: 'pre_tool_call',
  timestamp: '2026-06-19T14:03:11.123Z',
  sequence: 4,
  agent: { id: 'billing-agent', framework: 'langchain', name: 'Billing', version: '2.1' },
  session: { id: 's-1', turn: 2, started_at: '2026-06-19T14:00:00Z' },
  tool_call: { id: 'call_1', name: 'refund', args: { amount: 12.5 }, content_hash: 'sha256:00' },
  target: { amount: 12.5 },
  trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
  extensions: { acme: { redacted: [] } },
  messages: [{ role: 'user', content: 'refund me' }],
});

function domainError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValueDomainError);
    expect((error as ValueDomainError).code).toBe('host_error:context_invalid');
    return (error as Error).message;
  }
  throw new Error('expected a ValueDomainError');
}

describe('projectForIdentity (§10.2 closed required+conditional projection)', () => {
  it('keeps exactly the required core and the point’s conditional whitelist', () => {
    expect(projectForIdentity(preToolCall())).toEqual({
      spec: 'agent-hooks/0.1',
      interception_point: 'pre_tool_call',
      timestamp: '2026-06-19T14:03:11.123Z',
      sequence: 4,
      agent: { id: 'billing-agent', framework: 'langchain' },
      session: { id: 's-1' },
      tool_call: { id: 'call_1', name: 'refund', args: { amount: 12.5 } },
      target: { amount: 12.5 },
    });
  });

  it('keeps messages whole at pre_model_call and drops them elsewhere', () => {
    const ctx = {
      ...preToolCall(),
      interception_point: 'pre_model_call',
      model: { id: 'gpt-x', vendor: 'acme', params: { temperature: 0 } },
      tool_call: undefined,
      target: [{ role: 'user', content: 'refund me' }],
    };
    const projected = projectForIdentity(ctx);
    expect(projected.messages).toEqual([{ role: 'user', content: 'refund me' }]);
    expect(projected.model).toEqual({ id: 'gpt-x' });
    expect(projected).not.toHaveProperty('tool_call');
    expect(projected).not.toHaveProperty('trace');
  });

  it('refuses an absent or unknown interception point: no identity over a guessed preimage', () => {
    const { interception_point: _, ...noPoint } = preToolCall();
    expect(domainError(() => projectForIdentity(noPoint))).toContain('guessed preimage');
    expect(
      domainError(() => projectForIdentity({ ...preToolCall(), interception_point: 'pre_tool' })),
    ).toContain('outside §3');
    expect(domainError(() => projectForIdentity([]))).toContain('JSON object');
  });

  it('refuses a context missing a required or conditional member', () => {
    const ctx = preToolCall() as Record<string, unknown>;
    delete ctx.tool_call;
    expect(domainError(() => projectForIdentity(ctx))).toBe(
      'tool_call is required at pre_tool_call (§4.1, §4.2) at $.tool_call',
    );
    const noFramework = { ...preToolCall(), agent: { id: 'a' } };
    expect(domainError(() => projectForIdentity(noFramework))).toContain('$.agent.framework');
    const { sequence: _, ...noSequence } = preToolCall();
    expect(domainError(() => projectForIdentity(noSequence))).toContain('sequence is required');
    expect(domainError(() => projectForIdentity({ ...preToolCall(), session: 's-1' }))).toContain(
      'session must be an object',
    );
  });
});

describe('jcsSha256 (§10.2)', () => {
  it('hashes the canonical projection: sha256 of the UTF-8 bytes, lowercase hex', () => {
    const canonical =
      '{"agent":{"framework":"langchain","id":"billing-agent"},"interception_point":"pre_tool_call",' +
      '"sequence":4,"session":{"id":"s-1"},"spec":"agent-hooks/0.1","target":{"amount":12.5},' +
      '"timestamp":"2026-06-19T14:03:11.123Z","tool_call":{"args":{"amount":12.5},"id":"call_1","name":"refund"}}';
    const expected = `sha256:${createHash('sha256').update(Buffer.from(canonical, 'utf8')).digest('hex')}`;
    expect(jcsSha256.compute(preToolCall())).toBe(expected);
    expect(identityOfCanonical(canonical)).toBe(expected);
    expect(jcsSha256.name).toBe('jcs-sha256');
    expect(isContentDerived(jcsSha256)).toBe(true);
  });

  it('ignores optional and namespaced data but binds every whitelisted member', () => {
    const base = jcsSha256.compute(preToolCall());
    const extra = { ...preToolCall(), extensions: { other: 1 }, tenant: { id: 't' } };
    expect(jcsSha256.compute(extra)).toBe(base);
    expect(jcsSha256.compute({ ...preToolCall(), sequence: 5 })).not.toBe(base);
    expect(jcsSha256.compute({ ...preToolCall(), timestamp: '2026-06-19T14:03:11.124Z' })).not.toBe(
      base,
    );
    expect(jcsSha256.compute({ ...preToolCall(), target: { amount: 13 } })).not.toBe(base);
  });

  it('rejects a projection outside the domain but not an out-of-domain optional field', () => {
    const bigArgs = { ...preToolCall(), target: { id: 2 ** 53 } };
    expect(domainError(() => jcsSha256.compute(bigArgs))).toContain(
      'integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4 at $.target.id',
    );
    // An optional member is not in the preimage, so it cannot break the identity.
    const bigOptional = { ...preToolCall(), budgets: { token_count: 2 ** 60 } };
    expect(jcsSha256.compute(bigOptional)).toBe(jcsSha256.compute(preToolCall()));
  });

  it('keeps the JSON-text verdict on a number the projection copies into a new object (§10.2)', () => {
    // tool_result.value and target sit directly in objects the projection rebuilds.
    const text =
      '{"spec":"agent-hooks/0.1","interception_point":"post_tool_call","timestamp":"2026-06-19T14:03:11.123Z",' +
      '"sequence":1,"agent":{"id":"a","framework":"f"},"session":{"id":"s"},' +
      '"tool_call":{"id":"c","name":"n","args":{}},"tool_result":{"value":1e16,"is_error":false},"target":1e16}';
    const canonical =
      '{"agent":{"framework":"f","id":"a"},"interception_point":"post_tool_call","sequence":1,' +
      '"session":{"id":"s"},"spec":"agent-hooks/0.1","target":10000000000000000,' +
      '"timestamp":"2026-06-19T14:03:11.123Z","tool_call":{"args":{},"id":"c","name":"n"},' +
      '"tool_result":{"is_error":false,"value":10000000000000000}}';
    const expected = `sha256:${createHash('sha256').update(Buffer.from(canonical, 'utf8')).digest('hex')}`;
    expect(jcsSha256.compute(parseJsonText(text))).toBe(expected);
    // The same context built in-process has no token: 1e16 is judged by value.
    expect(domainError(() => jcsSha256.compute(JSON.parse(text)))).toContain(
      'integer exceeds 2^53',
    );
  });
});

describe('customIdentityProvider (§10.1)', () => {
  it('enforces the name rule and the reserved jcs prefix', () => {
    for (const bad of ['', 'Hmac', '9lives', 'jcs', 'jcs-sha512', 'with space', 'a.b']) {
      expect(() => customIdentityProvider(bad, () => 'x')).toThrow(HooksConfigError);
    }
    expect(customIdentityProvider('hmac-sha256-k1', () => 'x').name).toBe('hmac-sha256-k1');
    expect(customIdentityProvider('a_b-c', () => 'x').name).toBe('a_b-c');
  });

  it('fails closed on a throw or a non-string, without leaking the exception message', () => {
    const throwing = customIdentityProvider('flaky', () => {
      throw new TypeError('secret target text');
    });
    const message = domainError(() => throwing.compute({}));
    expect(message).toContain('raised TypeError');
    expect(message).not.toContain('secret');
    const numeric = customIdentityProvider('numeric', () => 42 as unknown as string);
    expect(domainError(() => numeric.compute({}))).toContain('non-string');
    expect(customIdentityProvider('ok', () => 'id-1').compute({})).toBe('id-1');
  });

  it('reports content derivation only when declared', () => {
    expect(isContentDerived(customIdentityProvider('opaque', () => 'x'))).toBe(false);
    expect(
      isContentDerived(
        customIdentityProvider('hmac-sha256-k1', () => 'x', { contentDerived: true }),
      ),
    ).toBe(true);
    expect(isContentDerived(null)).toBe(false);
  });
});
