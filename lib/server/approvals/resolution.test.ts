import { describe, expect, it } from 'vitest';
import { type AgentContext, buildContext } from '@checkpoint/agent-hooks';
import { DecisionError } from './errors';
import { buildResolution, decisionVerdict } from './resolution';

const context = buildContext(
  'pre_tool_call',
  {
    timestamp: '2026-12-02T10:00:00Z',
    sequence: 3,
    agent: { id: 'a', framework: 'f' },
    session: { id: 's' },
  },
  {
    tool_call: { id: 'c', name: 'pay', args: { amount: 5, lines: [{ iban: '[redacted]', n: 1 }] } },
  },
) as AgentContext;

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof DecisionError) return e.code;
    throw e;
  }
  return undefined;
}

describe('decision verdicts (§5.2 edits) and released resolutions (§9)', () => {
  const redactedPaths = ['$target.lines[0].iban'];

  it('an edit may not read or rewrite a redacted value, nor any of its ancestors', () => {
    for (const path of [
      '$target.lines[0].iban',
      '$target.lines[0]',
      '$target.lines',
      '$target',
      '$target["lines"][0]["iban"]',
    ]) {
      expect(
        code(() =>
          decisionVerdict('approve', { edit: { path, value: 1 }, context, redactedPaths }),
        ),
      ).toBe('edit_touches_redacted');
    }
    // A sibling is fine, and the path comes back in canonical spelling.
    expect(
      decisionVerdict('approve', {
        edit: { path: '$target.lines[0]["n"]', value: 2 },
        context,
        redactedPaths,
      }),
    ).toEqual({ decision: 'transform', transform: { path: '$target.lines[0].n', value: 2 } });
  });

  it('a redacted path outside the §5.2 grammar refuses every edit (fail closed)', () => {
    expect(
      code(() =>
        decisionVerdict('approve', {
          edit: { path: '$target.amount', value: 1 },
          context,
          redactedPaths: ['$target["api key"]'],
        }),
      ),
    ).toBe('edit_touches_redacted');
  });

  it('an absent edit value is null (§5.2), and a bad one is edit_value_invalid', () => {
    expect(
      decisionVerdict('approve', {
        edit: { path: '$target.amount', value: undefined },
        context,
        redactedPaths: [],
      }),
    ).toEqual({ decision: 'transform', transform: { path: '$target.amount', value: null } });
    expect(
      code(() =>
        decisionVerdict('approve', {
          edit: { path: '$target.amount', value: Number.NaN },
          context,
          redactedPaths: [],
        }),
      ),
    ).toBe('edit_value_invalid');
  });

  it("a rejection is a stable non-host_error deny carrying the decider's words (§9, §11)", () => {
    const reject = (o: { reason?: string; reasonCode?: string }) =>
      decisionVerdict('reject', { ...o, context, redactedPaths: [] });
    expect(reject({ reason: ' Supplier not verified ' })).toEqual({
      decision: 'deny',
      reason: 'approval_rejected',
      message: 'Supplier not verified',
    });
    expect(reject({ reason: 'No.', reasonCode: 'policy:no' })).toEqual({
      decision: 'deny',
      reason: 'policy:no',
      message: 'No.',
    });
    expect(code(() => reject({ reason: '  ' }))).toBe('reason_required');
    expect(code(() => reject({ reason: 'x', reasonCode: ' ' }))).toBe('resolution_invalid');
    expect(code(() => reject({ reason: 'x', reasonCode: 'host_error:context_invalid' }))).toBe(
      'resolution_invalid',
    );
  });

  it('an edit whose result leaves the domain where it lands is edit_value_invalid (§10.2)', () => {
    // 125 levels pass alone; under tool_call.args.lines[0] the context is 5 deeper.
    let deep: unknown = 1;
    for (let i = 0; i < 125; i++) deep = [deep];
    expect(
      code(() =>
        decisionVerdict('approve', {
          edit: { path: '$target.lines[0].n', value: deep },
          context,
          redactedPaths: [],
        }),
      ),
    ).toBe('edit_value_invalid');
  });

  it('a resolution that would fail §9 is never built', () => {
    expect(code(() => buildResolution('sha256:x', 'approve', { decision: 'deny' }))).toBe(
      'resolution_invalid',
    );
    expect(
      code(() =>
        buildResolution('sha256:x', 'reject', { decision: 'deny', reason: 'host_error:x' }),
      ),
    ).toBe('resolution_invalid');
    expect(buildResolution(null, 'unresolved')).toEqual({
      outcome: 'unresolved',
      context_identity: null,
    });
  });
});
