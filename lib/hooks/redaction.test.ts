import { describe, expect, it } from 'vitest';
import { redactPaths } from '@/lib/hooks';
import { ctxFor } from './test-helpers';
import { withTarget } from './transform';

describe('§9 redactPaths uses the §5.2 grammar', () => {
  it('redacts member names the grammar allows (digits first, hyphens) and records them canonically', () => {
    const ctx = withTarget(ctxFor('pre_tool_call'), {
      'order-id': 'A-1',
      '9lives': 'cat',
      '0': 'zero',
      list: ['a', 'b'],
    });
    const out = redactPaths(
      ['$target["order-id"]', '$target.9lives', '$target.0', '$target.list[001]'],
      {
        namespace: 'ns',
      },
    )(ctx);
    expect(out.target).toEqual({
      'order-id': '[redacted]',
      '9lives': '[redacted]',
      '0': '[redacted]',
      list: ['a', '[redacted]'],
    });
    expect((out.tool_call as { args: unknown }).args).toBe(out.target);
    expect(out.extensions).toEqual({
      ns: { redacted: ['$target.order-id', '$target.9lives', '$target.0', '$target.list[1]'] },
    });
  });

  it('refuses a path outside the grammar up front, naming it and the offset (fails closed)', () => {
    expect(() => redactPaths(['$target.ok', '$target["with space"]'])).toThrow(
      /redaction path "\$target\[\\"with space\\"\]": .*offset 13/,
    );
    expect(() => redactPaths(['$target["a.b"]'])).toThrow(TypeError);
    expect(() => redactPaths(['$targets.x'])).toThrow(/not rooted at \$target/);
  });

  it('redacts at agent_startup too: the transform ban of §4.3 is not a redaction ban', () => {
    const ctx = ctxFor('agent_startup');
    const out = redactPaths(['$target.tools_registered'])(ctx);
    expect(out.target).toEqual({ tools_registered: '[redacted]' });
    expect(out.agent_init).toBe(out.target);
  });

  it('leaves paths that do not resolve alone, and the context untouched when none do', () => {
    const ctx = ctxFor('pre_tool_call');
    expect(redactPaths(['$target.missing', '$target.n[5]', '$target[0]'])(ctx)).toBe(ctx);
  });
});
