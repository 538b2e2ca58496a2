import { describe, expect, it } from 'vitest';
import { HOST_ERRORS, type Interceptor, type Profile } from '@checkpoint/agent-hooks';
import { allow, counted, ctxFor, deny, hostWith, returns, sleep } from './test-helpers.ts';

const raises = () => {
  throw new TypeError('leaked secret from the target: hunter2');
};
const hangs = () => new Promise(() => {});

describe('§6.3 failure handling', () => {
  const failures: Array<[string, (...args: never[]) => unknown, string]> = [
    ['raises', raises, HOST_ERRORS.interceptorFailed],
    [
      'rejects',
      async () => Promise.reject(new RangeError('hunter2')),
      HOST_ERRORS.interceptorFailed,
    ],
    [
      'throws a non-Error',
      () => {
        throw 'hunter2';
      },
      HOST_ERRORS.interceptorFailed,
    ],
    [
      'returns a non-JSON value (a function inside)',
      () => ({ decision: 'allow', message: () => 1 }),
      HOST_ERRORS.interceptorFailed,
    ],
    ['returns undefined', () => undefined, HOST_ERRORS.interceptorFailed],
    [
      'returns NaN in evidence',
      () => ({ decision: 'allow', evidence: { x: Number.NaN } }),
      HOST_ERRORS.interceptorFailed,
    ],
    ['exceeds the timeout', hangs, HOST_ERRORS.interceptorTimeout],
    [
      'returns a §5-invalid verdict',
      returns({ decision: 'transform' }),
      HOST_ERRORS.verdictInvalid,
    ],
  ];
  for (const [what, fn, reason] of failures) {
    it(`an interceptor that ${what} yields deny ${reason} in its own slot`, async () => {
      const host = hostWith([allow, fn as Interceptor], { interceptorTimeoutMs: 30 });
      const result = await host.evaluate(ctxFor('input'));
      expect(result.proceed).toBe(false);
      expect(result.verdict.decision).toBe('deny');
      expect(result.verdict.reason).toBe(reason);
      expect(result.record.decided_by).toBe(1);
      expect(result.record.verdicts?.[1]).toEqual({ index: 1, decision: 'deny', reason });
      // Never target-derived content: a type name at most.
      expect(JSON.stringify(result.verdict)).not.toContain('hunter2');
      expect(JSON.stringify(result.record)).not.toContain('hunter2');
    });
  }

  it('names the exception type, not its message', async () => {
    const result = await hostWith([raises]).evaluate(ctxFor('input'));
    expect(result.verdict.message).toBe('interceptor raised TypeError');
  });

  for (const profile of ['sequential/run_all', 'parallel/strictest'] as Profile[]) {
    it(`in ${profile} a failure composes as a deny; other interceptors are unaffected`, async () => {
      const later = counted({ decision: 'allow', warnings: [{ reason: 'seen' }] });
      const host = hostWith([raises, later.intercept, deny('plain')], { composition: profile });
      const result = await host.evaluate(ctxFor('input'));
      expect(later.calls).toHaveLength(1);
      // The failure deny at index 0 outranks the later plain deny by index.
      expect(result.record.decided_by).toBe(0);
      expect(result.verdict.reason).toBe(HOST_ERRORS.interceptorFailed);
      expect(result.verdict.warnings).toEqual([{ reason: 'seen' }]);
      expect(result.record.verdicts?.map((v) => v.decision)).toEqual(['deny', 'allow', 'deny']);
    });
  }
});

describe('§7 interceptor timeouts', () => {
  it('defaults to 5000 ms and is configurable; a late answer is ignored', async () => {
    let aborted = false;
    const slow = async (_ctx: unknown, signal: AbortSignal) => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      await sleep(80);
      return { decision: 'allow' };
    };
    const host = hostWith([slow], { interceptorTimeoutMs: 20 });
    const result = await host.evaluate(ctxFor('input'));
    expect(result.verdict.reason).toBe(HOST_ERRORS.interceptorTimeout);
    expect(aborted).toBe(true);
    const patient = await hostWith([slow], { interceptorTimeoutMs: 500 }).evaluate(ctxFor('input'));
    expect(patient.proceed).toBe(true);
  });

  it('each interceptor gets its own budget in a sequential fold', async () => {
    const step = async () => {
      await sleep(25);
      return { decision: 'allow' };
    };
    const result = await hostWith([step, step, step], { interceptorTimeoutMs: 60 }).evaluate(
      ctxFor('input'),
    );
    expect(result.proceed).toBe(true);
  });
});

describe('§7 zero registered interceptors', () => {
  for (const profile of [
    'sequential/first_deny',
    'sequential/run_all',
    'parallel/strictest',
    'parallel/unanimous',
  ] as Profile[]) {
    it(`in enforce mode every emission is deny no_interceptor (${profile})`, async () => {
      const result = await hostWith([], { composition: profile }).evaluate(ctxFor('input'));
      expect(result.proceed).toBe(false);
      expect(result.verdict.reason).toBe(HOST_ERRORS.noInterceptor);
      expect(result.record).toMatchObject({ decided_by: null, interceptors_registered: 0 });
      expect(result.record.input_identity).toMatch(/^sha256:/);
    });
  }

  it('a deliberate passthrough is an explicit allow-all interceptor', async () => {
    expect((await hostWith([allow]).evaluate(ctxFor('input'))).proceed).toBe(true);
  });
});

describe('§8 enforcement mode', () => {
  it('evaluate_only runs the profile, records the verdict, and proceeds with the target unchanged', async () => {
    const later = counted();
    const host = hostWith(
      [
        returns({ decision: 'transform', transform: { path: '$target.q', value: 'x' } }),
        later.intercept,
        deny('no'),
      ],
      {
        mode: 'evaluate_only',
      },
    );
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.proceed).toBe(true);
    expect(result.mode).toBe('evaluate_only');
    expect(result.target).toEqual({ q: 'secret', n: [1, 2] });
    // §7.4: in evaluate_only later interceptors see the untransformed context.
    expect((later.calls[0].target as { q: string }).q).toBe('secret');
    expect(result.record).toMatchObject({
      mode: 'evaluate_only',
      verdict: { decision: 'deny', reason: 'no' },
    });
    expect(result.record.enforced_identity).toBe(result.record.input_identity);
  });

  it('evaluate_only still validates transforms (§5.2)', async () => {
    const host = hostWith(
      [returns({ decision: 'transform', transform: { path: '$target.zzz', value: 1 } })],
      {
        mode: 'evaluate_only',
      },
    );
    const result = await host.evaluate(ctxFor('pre_tool_call'));
    expect(result.proceed).toBe(true);
    expect(result.record.verdict.reason).toBe(HOST_ERRORS.transformInvalid);
  });

  it('evaluate_only with zero interceptors records the no_interceptor deny but proceeds (§7, §8)', async () => {
    const result = await hostWith([], { mode: 'evaluate_only' }).evaluate(ctxFor('input'));
    expect(result.proceed).toBe(true);
    expect(result.record).toMatchObject({
      mode: 'evaluate_only',
      verdict: { decision: 'deny', reason: HOST_ERRORS.noInterceptor },
      decided_by: null,
      interceptors_registered: 0,
    });
    expect(result.record.enforced_identity).toBe(result.record.input_identity);
  });

  it('mode can be set per point', async () => {
    const host = hostWith([deny()], { modeByPoint: { output: 'evaluate_only' } });
    expect((await host.evaluate(ctxFor('output'))).proceed).toBe(true);
    expect((await host.evaluate(ctxFor('input'))).proceed).toBe(false);
  });
});
