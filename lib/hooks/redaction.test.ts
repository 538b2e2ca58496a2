import { describe, expect, it } from 'vitest';
import { parseTransformPath, redactionTouchedByEdit, redactPaths } from '@checkpoint/agent-hooks';
import { ctxFor } from './test-helpers.ts';
import { withTarget } from './transform.ts';

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

describe('§9 an edit never reaches what the host redacted', () => {
  const at = (path: string) => {
    const parsed = parseTransformPath(path);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.segments;
  };
  const redacted = ['$target.password', '$target.auth["api-key"]', '$target.cards[1].pan'];

  it('reports the redacted path an edit writes into, over or at, in canonical spelling', () => {
    expect(redactionTouchedByEdit(at('$target'), redacted)).toEqual({
      path: '$target.password',
      canonical: '$target.password',
    });
    expect(redactionTouchedByEdit(at('$target["auth"]'), redacted)).toEqual({
      path: '$target.auth["api-key"]',
      canonical: '$target.auth.api-key',
    });
    expect(redactionTouchedByEdit(at('$target.auth.api-key.x'), redacted)?.canonical).toBe(
      '$target.auth.api-key',
    );
    expect(redactionTouchedByEdit(at('$target.cards[01]'), redacted)?.canonical).toBe(
      '$target.cards[1].pan',
    );
  });

  it('lets through an edit beside every redacted path (segments, not text prefixes)', () => {
    for (const edit of [
      '$target.password2',
      '$target.auth.api',
      '$target.cards[0]',
      '$target.cards[10].pan',
    ]) {
      expect(redactionTouchedByEdit(at(edit), redacted), edit).toBeNull();
    }
    // A member named "1" is not index 1 (§5.2 dot-member).
    expect(redactionTouchedByEdit(at('$target.cards.1'), redacted)).toBeNull();
    expect(redactionTouchedByEdit(at('$target.x'), [])).toBeNull();
  });

  it('fails closed on a redacted path outside the grammar: every edit touches it', () => {
    const legacy = ['$target["api key"]'];
    expect(redactionTouchedByEdit(at('$target.unrelated'), legacy)).toEqual({
      path: '$target["api key"]',
      canonical: null,
    });
  });
});
