import { describe, expect, it } from 'vitest';
import { HOST_ERRORS, validateVerdict, Verdict } from '@/lib/hooks';
import { ctxFor, hostWith, returns } from './test-helpers';

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
