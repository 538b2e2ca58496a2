import { describe, expect, it } from 'vitest';
import {
  formatTargetPath,
  leafPaths,
  lineDiff,
  locationLabel,
  setAt,
  touchesRedacted,
  typeChange,
} from '@/app/components/approvals/target-edit';
import { parseTransformPath } from '@checkpoint/agent-hooks';

describe('approve-with-edit helpers', () => {
  it('lists every leaf as a §5.2 path the engine parses back to the same segments', () => {
    const target = {
      to: 'a@b.c',
      'api-key': 'x',
      '9lives': 1,
      '0': 2,
      items: [{ n: 1 }, []],
      empty: {},
    };
    const leaves = leafPaths(target);
    const paths = leaves.map((s) => formatTargetPath(s));
    expect(paths).toEqual([
      '$target.0',
      '$target.to',
      '$target.api-key',
      '$target.9lives',
      '$target.items[0].n',
      '$target.items[1]',
      '$target.empty',
    ]);
    for (const [i, p] of paths.entries()) {
      const parsed = parseTransformPath(p as string);
      if (!parsed.ok) throw new Error(parsed.message);
      expect(parsed.segments.map((s) => (s.kind === 'index' ? s.index : s.name))).toEqual(
        leaves[i],
      );
    }
    expect(leafPaths('scalar')).toEqual([[]]);
  });

  it('a key outside the §5.2 member names has no path: null, never an invalid path', () => {
    const target = { 'api key': 'x', 'a.b': { c: 1 }, é: 2, '': 3, ok: 4 };
    const paths = leafPaths(target).map((s) => formatTargetPath(s));
    expect(paths).toEqual([null, null, null, null, '$target.ok']);
    expect(locationLabel(['a.b', 'c'])).toBe('$target › "a.b" › "c"');
    expect(locationLabel(['list', 0])).toBe('$target › "list" › [0]');
  });

  it('sets a value at a path without touching the original', () => {
    const target = { a: { b: [1, 2] }, c: 3 };
    expect(setAt(target, ['a', 'b', 1], 9)).toEqual({ a: { b: [1, 9] }, c: 3 });
    expect(target.a.b[1]).toBe(2);
    expect(setAt(target, [], 'whole')).toBe('whole');
    expect(() => setAt(target, ['c', 'x'], 1)).toThrow();
  });

  it('knows when an edit would write into or over a redacted value', () => {
    const redacted = ['$target.password', '$target.auth.api-key'];
    expect(touchesRedacted('$target', redacted)).toBe(true);
    expect(touchesRedacted('$target.password', redacted)).toBe(true);
    expect(touchesRedacted('$target.auth', redacted)).toBe(true);
    expect(touchesRedacted('$target.password2', redacted)).toBe(false);
    expect(touchesRedacted('$target.auth.api', redacted)).toBe(false);
    expect(touchesRedacted('$target.auth.api-key', redacted)).toBe(true);
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

describe('typeChange (issue 14: a type change in an edit is never silent)', () => {
  it('names the change, or null when the type stays', () => {
    expect(typeChange(25000, '25000')).toBe('number → string');
    expect(typeChange('a', 1)).toBe('string → number');
    expect(typeChange(1, 2)).toBeNull();
    expect(typeChange({ a: 1 }, [1])).toBe('object → array');
    expect(typeChange(null, 'x')).toBe('null → string');
    expect(typeChange(true, 'true')).toBe('boolean → string');
    expect(typeChange(undefined, 'x')).toBeNull();
  });
});
