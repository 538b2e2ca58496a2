import { describe, expect, it } from 'vitest';
import {
  createHost,
  customIdentityProvider,
  HOST_ERROR_PREFIX,
  HOST_ERRORS,
  HooksConfigError,
  type HostOptions,
  RESERVED_REASONS,
} from '@checkpoint/agent-hooks';
import { AGENT, allow, ctxFor, escalate, hostWith, returns, transform } from './test-helpers.ts';

describe('§11 reserved reasons', () => {
  it('every host_error:* the engine produces is one of the fourteen reserved reasons', async () => {
    const seen = new Set<string>();
    const scenarios: Array<[Partial<HostOptions>, unknown[], unknown]> = [
      [{}, [], ctxFor('input')],
      [{}, [allow], { bogus: true }],
      [{ interceptorTimeoutMs: 5 }, [() => new Promise(() => {})], ctxFor('input')],
      [
        {},
        [
          () => {
            throw new Error();
          },
        ],
        ctxFor('input'),
      ],
      [{}, [returns({ decision: 'nope' })], ctxFor('input')],
      [{}, [transform('$target.zz', 1)], ctxFor('pre_tool_call')],
      [{}, [transform('$other', 1)], ctxFor('pre_tool_call')],
      [
        { composition: 'parallel/strictest' },
        [transform('$target.q', 1), transform('$target.q', 2)],
        ctxFor('pre_tool_call'),
      ],
      [{ composition: 'parallel/unanimous' }, [allow, escalate()], ctxFor('input')],
      [
        {
          resolver: () => {
            throw new Error();
          },
        },
        [escalate()],
        ctxFor('input'),
      ],
      [
        {
          resolver: (r: { context_identity: unknown }) => ({
            outcome: 'unresolved',
            context_identity: r.context_identity,
          }),
        } as never,
        [escalate()],
        ctxFor('input'),
      ],
      [
        {
          resolver: () => ({
            outcome: 'approve',
            context_identity: 'x',
            verdict: { decision: 'allow' },
          }),
        } as never,
        [escalate()],
        ctxFor('input'),
      ],
      [
        {
          identityProvider: customIdentityProvider('ctk-fault', () => {
            throw new Error();
          }),
        },
        [allow],
        ctxFor('input'),
      ],
    ];
    for (const [options, interceptors, ctx] of scenarios) {
      const result = await hostWith(interceptors as never, options).evaluate(ctx);
      const reason = result.verdict.reason ?? '';
      if (reason.startsWith(HOST_ERROR_PREFIX)) seen.add(reason);
    }
    for (const reason of seen) expect(RESERVED_REASONS).toContain(reason);
    expect(seen.size).toBe(12);
    expect(RESERVED_REASONS).toHaveLength(14);
    expect(RESERVED_REASONS).not.toContain('host_error:approval_resolver_missing');
    expect(Object.values(HOST_ERRORS)).toEqual(RESERVED_REASONS);
  });
});

describe('host configuration is validated up front', () => {
  const bad: Array<[string, Partial<HostOptions>]> = [
    ['an unknown profile', { composition: 'parallel/quorum' as never }],
    [
      'an unknown knob value',
      { composition: { profile: 'sequential/first_deny', on_approval: 'maybe' as never } },
    ],
    ['an unknown mode', { mode: 'observe' as never }],
    ['a per-point key outside §3', { modeByPoint: { on_error: 'enforce' } as never }],
    ['a reserved host namespace', { namespace: 'acs' }],
    ['a malformed host namespace', { namespace: 'My-Host' }],
    [
      'a reserved interceptor namespace',
      { interceptors: [{ namespace: 'agent_hooks', intercept: allow }] },
    ],
    ['a non-function interceptor', { interceptors: [{} as never] }],
    ['a non-positive timeout', { interceptorTimeoutMs: 0 }],
    ['a framework outside the pattern', { agent: { id: 'a', framework: 'Lang Chain' } }],
  ];
  for (const [what, options] of bad) {
    it(`rejects ${what} with HooksConfigError (code config_invalid)`, () => {
      const make = () => createHost({ agent: AGENT, ...options });
      expect(make).toThrow(HooksConfigError);
      try {
        make();
      } catch (error) {
        expect((error as HooksConfigError).code).toBe('config_invalid');
      }
    });
  }
});
