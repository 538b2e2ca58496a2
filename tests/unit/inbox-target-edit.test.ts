import { describe, expect, it } from 'vitest';
import {
  formatTargetPath,
  leafPaths,
  lineDiff,
  setAt,
  touchesRedacted,
} from '@/app/components/approvals/target-edit';
import { parseTransformPath } from '@/lib/hooks';

describe('approve-with-edit helpers', () => {
  it('lists every leaf as a §5.2 path the engine parses back to the same segments', () => {
    const target = { to: 'a@b.c', 'api key': 'x', items: [{ n: 1 }, []], empty: {} };
    const paths = leafPaths(target).map((s) => formatTargetPath(s));
    expect(paths).toEqual([
      '$target.to',
      '$target["api key"]',
      '$target.items[0].n',
      '$target.items[1]',
      '$target.empty',
    ]);
    for (const p of paths) expect(parseTransformPath(p).ok).toBe(true);
    expect(leafPaths('scalar')).toEqual([[]]);
  });

  it('sets a value at a path without touching the original', () => {
    const target = { a: { b: [1, 2] }, c: 3 };
    expect(setAt(target, ['a', 'b', 1], 9)).toEqual({ a: { b: [1, 9] }, c: 3 });
    expect(target.a.b[1]).toBe(2);
    expect(setAt(target, [], 'whole')).toBe('whole');
    expect(() => setAt(target, ['c', 'x'], 1)).toThrow();
  });

  it('knows when an edit would write into or over a redacted value', () => {
    const redacted = ['$target.password', '$target.auth["api key"]'];
    expect(touchesRedacted('$target', redacted)).toBe(true);
    expect(touchesRedacted('$target.password', redacted)).toBe(true);
    expect(touchesRedacted('$target.auth', redacted)).toBe(true);
    expect(touchesRedacted('$target.password2', redacted)).toBe(false);
    expect(touchesRedacted('$target.user', redacted)).toBe(false);
  });

  it('diffs line by line, keeping the common lines', () => {
    const before = JSON.stringify({ amount: 5000, to: 'acme' }, null, 2);
    const after = JSON.stringify({ amount: 500, to: 'acme' }, null, 2);
    expect(lineDiff(before, after)).toEqual([
      { kind: 'same', text: '{' },
      { kind: 'del', text: '  "amount": 5000,' },
      { kind: 'add', text: '  "amount": 500,' },
      { kind: 'same', text: '  "to": "acme"' },
      { kind: 'same', text: '}' },
    ]);
  });
});
