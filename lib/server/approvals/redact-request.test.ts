import { describe, expect, it } from 'vitest';
import { type AgentContext, buildContext } from '@checkpoint/agent-hooks';
import { bindContext } from './redact-request';

function contextWith(target: Record<string, unknown>, redacted?: unknown[]): AgentContext {
  return buildContext(
    'pre_tool_call',
    {
      timestamp: '2026-12-02T10:00:00Z',
      sequence: 1,
      agent: { id: 'a', framework: 'f' },
      session: { id: 's' },
      ...(redacted ? { extensions: { host: { redacted } } } : {}),
    },
    { tool_call: { id: 'c', name: 'pay', args: target } },
  );
}

describe('bindContext and the §5.2 grammar', () => {
  it("applies the host's paths with the grammar's member names (hyphen, leading digit)", () => {
    const ctx = contextWith({ 'order-id': 'A-1', '9lives': 'x', ok: 1 });
    const bound = bindContext(ctx, ['$target.order-id', '$target.9lives'], null, null);
    expect(bound.context.target).toEqual({
      'order-id': '[redacted]',
      '9lives': '[redacted]',
      ok: 1,
    });
    expect(bound.redactedPaths).toEqual(['$target.order-id', '$target.9lives']);
  });

  it('a stored host path outside the grammar stores nothing: it throws, naming the path', () => {
    const ctx = contextWith({ 'api key': 'secret' });
    expect(() => bindContext(ctx, ['$target["api key"]'], null, null)).toThrow(/offset 12/);
  });

  it('host-declared redactions: canonical when they parse, kept verbatim when they do not', () => {
    const declared = ['$target["order-id"]', '$target["api key"]', 7, '$target["order-id"]'];
    const bound = bindContext(contextWith({ a: 1 }, declared), [], null, null);
    expect(bound.redactedPaths).toEqual(['$target.order-id', '$target["api key"]']);
  });
});
