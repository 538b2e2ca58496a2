import { describe, expect, it } from 'vitest';
import { HOST_ERRORS, validateResolution, validateVerdict, Verdict } from '@checkpoint/agent-hooks';
import { ctxFor, hostWith, returns } from './test-helpers.ts';

const invalid = HOST_ERRORS.verdictInvalid;

describe('§5 verdict validation', () => {
  const cases: Array<[string, unknown]> = [
    ['a non-object', 'allow'],
    ['an array', [{ decision: 'allow' }]],
    ['null', null],
    ['an absent decision', { reason: 'x' }],
    ['an unknown decision', { decision: 'warn' }],
    ['a non-string reason', { decision: 'allow', reason: 3 }],
    ['a host_error: reason', { decision: 'deny', reason: 'host_error:no_interceptor' }],
    ['a non-string message', { decision: 'allow', message: {} }],
    ['warnings not an array', { decision: 'allow', warnings: { reason: 'w' } }],
    ['warnings with a non-object', { decision: 'allow', warnings: ['w'] }],
    ['a warning with a non-string reason', { decision: 'allow', warnings: [{ reason: 1 }] }],
    ['approval on allow', { decision: 'allow', approval: {} }],
    [
      'approval on transform',
      { decision: 'transform', transform: { path: '$target' }, approval: {} },
    ],
    ['approval not an object', { decision: 'deny', approval: true }],
    ['transform decision without transform', { decision: 'transform' }],
    ['transform with a non-string path', { decision: 'transform', transform: { path: 1 } }],
    ['transform member on deny', { decision: 'deny', transform: { path: '$target', value: 1 } }],
    ['evidence not an object', { decision: 'allow', evidence: 'uri' }],
    ['result_labels not strings', { decision: 'allow', result_labels: ['a', 1] }],
    ['result_labels not an array', { decision: 'allow', result_labels: 'a' }],
  ];
  for (const [what, value] of cases) {
    it(`rejects ${what} as host_error:verdict_invalid`, () => {
      const checked = validateVerdict(value);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.reason).toBe(invalid);
    });
  }

  it('accepts every member in its valid form', () => {
    const v = {
      decision: 'deny',
      reason: 'r',
      message: 'm',
      warnings: [{ reason: 'w' }, { message: 'only message' }, {}],
      approval: { ticket: 1 },
      evidence: { artefact: 'a', verification_pointers: { k: 'https://x' } },
      result_labels: ['pii'],
    };
    expect(validateVerdict(v)).toEqual({ ok: true, verdict: v });
    expect(validateVerdict({ decision: 'transform', transform: { path: '$target' } }).ok).toBe(
      true,
    );
  });

  it('§5.3 caps evidence at 10240 bytes of RFC 8785 canonical JSON, not of the input spelling', () => {
    // {"a":"xxx…"} is 8 bytes of structure; whitespace in a producer's spelling does not count.
    const exactly = { a: 'x'.repeat(10240 - 8) };
    expect(validateVerdict({ decision: 'allow', evidence: exactly }).ok).toBe(true);
    const over = { a: 'x'.repeat(10240 - 7) };
    expect(validateVerdict({ decision: 'allow', evidence: over }).ok).toBe(false);
    // Multi-byte characters count in UTF-8 bytes: 3 bytes each.
    const euro = { a: '€'.repeat(3411) }; // 8 + 3*3411 = 10241
    expect(validateVerdict({ decision: 'allow', evidence: euro }).ok).toBe(false);
  });

  it('§5 an invalid verdict becomes {"decision":"deny","reason":"host_error:verdict_invalid"} in the host', async () => {
    const host = hostWith([returns({ decision: 'allow', approval: {} })]);
    const result = await host.evaluate(ctxFor('input'));
    expect(result.proceed).toBe(false);
    expect(result.verdict.decision).toBe('deny');
    expect(result.verdict.reason).toBe(invalid);
    expect(result.record.decided_by).toBe(0);
  });
});

describe('§5 null optional members are absent (§5.2: bindings omit nulls)', () => {
  it.each([
    [{ decision: 'allow', reason: null }, { decision: 'allow' }],
    [
      { decision: 'deny', reason: 'r', message: null },
      { decision: 'deny', reason: 'r' },
    ],
    [{ decision: 'allow', warnings: null, result_labels: null }, { decision: 'allow' }],
    [
      { decision: 'allow', warnings: [{ reason: 'x', message: null }, { reason: null }] },
      { decision: 'allow', warnings: [{ reason: 'x' }, {}] },
    ],
    [
      { decision: 'deny', approval: {}, evidence: { artefact: null } },
      { decision: 'deny', approval: {}, evidence: { artefact: null } },
    ],
  ])('accepts %j as %j', (value, absent) => {
    expect(validateVerdict(value)).toEqual({ ok: true, verdict: absent });
  });

  it.each([
    ['evidence', { decision: 'allow', evidence: null }],
    ['approval', { decision: 'deny', approval: null }],
    ['transform', { decision: 'allow', transform: null }],
    ['decision', { decision: null }],
  ])('still refuses a null %s, which §5 types as an object or a value', (_, value) => {
    expect(validateVerdict(value)).toMatchObject({ ok: false, reason: invalid });
  });

  it('an interceptor returning nulls is allowed or denied as if they were absent', async () => {
    const allowed = await hostWith([
      returns({ decision: 'allow', reason: null, message: null, warnings: null }),
    ]).evaluate(ctxFor('input'));
    expect(allowed.proceed).toBe(true);
    expect(allowed.record.verdict).toEqual({ decision: 'allow' });
    const denied = await hostWith([
      returns({ decision: 'deny', reason: 'no', message: null, result_labels: null }),
    ]).evaluate(ctxFor('input'));
    expect(denied.proceed).toBe(false);
    expect(denied.record.verdict).toEqual({ decision: 'deny', reason: 'no' });
  });

  it('§7.3 a warning with a null message equals the same warning without one', async () => {
    const result = await hostWith(
      [
        returns({ decision: 'allow', warnings: [{ reason: 'x', message: null }] }),
        returns({ decision: 'allow', warnings: [{ reason: 'x' }] }),
      ],
      { composition: { profile: 'sequential/run_all' } },
    ).evaluate(ctxFor('input'));
    expect(result.record.verdict.warnings).toEqual([{ reason: 'x' }]);
  });
});

describe('§9 null optional members of a resolution are absent', () => {
  const id = 'sha256:abc';
  it('an unresolved resolution with a null verdict is unresolved, not malformed', () => {
    expect(
      validateResolution({ outcome: 'unresolved', context_identity: id, verdict: null }, id),
    ).toEqual({ ok: true, outcome: 'unresolved' });
  });

  it('an approve whose verdict carries nulls substitutes the verdict without them', () => {
    const verdict = { decision: 'allow', reason: 'ok', message: null, warnings: null };
    expect(validateResolution({ outcome: 'approve', context_identity: id, verdict }, id)).toEqual({
      ok: true,
      outcome: 'approve',
      verdict: { decision: 'allow', reason: 'ok' },
    });
  });

  it('an approve with a null verdict still has no verdict (§9 step 2)', () => {
    expect(
      validateResolution({ outcome: 'approve', context_identity: id, verdict: null }, id),
    ).toMatchObject({ ok: false, reason: HOST_ERRORS.approvalResolverFailed });
  });
});

describe('§5.1 Verdict constructors (warn and escalate sugar)', () => {
  it('warn is allow with a warnings entry', () => {
    expect(Verdict.warn('slow', 'took long')).toEqual({
      decision: 'allow',
      warnings: [{ reason: 'slow', message: 'took long' }],
    });
  });

  it('escalate is a deny with an empty approval block', () => {
    expect(Verdict.escalate('needs_review')).toEqual({
      decision: 'deny',
      reason: 'needs_review',
      approval: {},
    });
  });

  it('builds valid allow, deny and transform verdicts', () => {
    for (const v of [
      Verdict.allow({ result_labels: ['x'] }),
      Verdict.deny('no'),
      Verdict.transform('$target.q', null),
      Verdict.warn('w'),
      Verdict.escalate(),
    ]) {
      expect(validateVerdict(v).ok).toBe(true);
    }
  });

  it('records warnings without changing control flow', async () => {
    const host = hostWith([returns(Verdict.warn('slow', 'took long'))]);
    const result = await host.evaluate(ctxFor('input'));
    expect(result.proceed).toBe(true);
    expect(result.record.verdict).toEqual({
      decision: 'allow',
      warnings: [{ reason: 'slow', message: 'took long' }],
    });
  });
});
