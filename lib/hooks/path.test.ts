import { describe, expect, it } from 'vitest';
import {
  applyTransform,
  formatPath,
  formatSegments,
  HOST_ERRORS,
  isMemberName,
  type PathSegment,
  parseTransformPath,
  pathsOverlap,
} from '@checkpoint/agent-hooks';
import { ctxFor } from './test-helpers.ts';
import { withTarget } from './transform.ts';

const on = (point: 'pre_tool_call' | 'post_tool_call', target: unknown) =>
  withTarget(ctxFor(point), target);

const member = (name: string): PathSegment => ({ kind: 'member', name });
const index = (i: number): PathSegment => ({ kind: 'index', index: i });

describe('§5.2 path grammar (path-grammar.abnf): member-name = 1*(ALPHA / DIGIT / "_" / "-")', () => {
  const valid: Array<[string, PathSegment[]]> = [
    ['$target', []],
    ['$target.order-id', [member('order-id')]],
    ['$target.0', [member('0')]],
    ['$target.9lives', [member('9lives')]],
    ['$target.-', [member('-')]],
    ['$target._', [member('_')]],
    ['$target[007]', [index(7)]],
    ['$target[0]', [index(0)]],
    ['$target["order-id"]', [member('order-id')]],
    ['$target["0"]', [member('0')]],
    [
      '$target.a[00][1]["b-c"].D_e',
      [member('a'), index(0), index(1), member('b-c'), member('D_e')],
    ],
  ];
  for (const [path, segments] of valid) {
    it(`accepts ${path}`, () => {
      expect(parseTransformPath(path)).toEqual({ ok: true, segments, deprecatedRoot: false });
    });
  }

  const malformed: Array<[string, number]> = [
    ['$target["a.b"]', 10],
    ['$target["with space"]', 13],
    ['$target["é"]', 9],
    ['$target[""]', 9],
    ['$target.', 8],
    ['$target[-1]', 8],
    ['$target.é', 8],
    ['$target.a.b.', 12],
    ['$target["a\\"b"]', 10],
    ['$target["\\u0061"]', 9],
    ["$target['a']", 8],
    ['$target["a"', 11],
    ['$target["a"x', 11],
    ['$target[1.5]', 9],
    ['$target[]', 8],
    ['$target[*]', 8],
    ['$target..a', 8],
    ['$target a', 7],
    ['$target-x', 7],
    ['$target.a b', 9],
    ['$target[1', 9],
  ];
  for (const [path, offset] of malformed) {
    it(`refuses ${JSON.stringify(path)} as transform_invalid at offset ${offset}`, () => {
      const parsed = parseTransformPath(path);
      expect(parsed).toMatchObject({ ok: false, reason: HOST_ERRORS.transformInvalid, offset });
      expect(!parsed.ok && parsed.message).toContain(`offset ${offset}`);
    });
  }

  it('names the offending character and its code point', () => {
    const parsed = parseTransformPath('$target["with space"]');
    expect(!parsed.ok && parsed.message).toMatch(/offset 13: .*found U\+0020/);
    const dotted = parseTransformPath('$target["a.b"]');
    expect(!dotted.ok && dotted.message).toContain('found "." (U+002E)');
    const ended = parseTransformPath('$target.');
    expect(!ended.ok && ended.message).toContain('found the end of the path');
  });

  it('an index too large to be a safe integer is transform_invalid, never rounded', () => {
    for (const path of ['$target[9007199254740992]', '$target[99999999999999999999999]']) {
      expect(parseTransformPath(path)).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformInvalid,
        offset: 8,
      });
    }
    expect(parseTransformPath('$target[9007199254740991]')).toMatchObject({
      ok: true,
      segments: [index(9007199254740991)],
    });
  });

  for (const path of ['$targets.x', '$Target.x', '$TARGET', '$target_x', '$.x', 'x', '']) {
    it(`${JSON.stringify(path)} is not rooted at $target: transform_target_forbidden`, () => {
      expect(parseTransformPath(path)).toMatchObject({
        ok: false,
        reason: HOST_ERRORS.transformTargetForbidden,
      });
    });
  }

  it('the deprecated $policy_target root follows the same segment grammar', () => {
    expect(parseTransformPath('$policy_target.order-id[007]')).toEqual({
      ok: true,
      deprecatedRoot: true,
      segments: [member('order-id'), index(7)],
    });
    expect(parseTransformPath('$policy_target["a b"]')).toMatchObject({ ok: false, offset: 17 });
  });
});

describe('§5.2 formatting: only paths the grammar accepts', () => {
  it('renders members in dot form and indexes without leading zeros', () => {
    const parsed = parseTransformPath('$policy_target["order-id"][007].0["9lives"]');
    if (!parsed.ok) throw new Error(parsed.message);
    const path = formatPath(parsed.segments);
    expect(path).toBe('$target.order-id[7].0.9lives');
    expect(parseTransformPath(path)).toMatchObject({ ok: true, segments: parsed.segments });
  });

  it('a key outside member-name cannot be addressed: null, or a RangeError from formatPath', () => {
    for (const name of ['with space', 'a.b', 'é', '', 'a"b']) {
      expect(isMemberName(name)).toBe(false);
      expect(formatSegments([member('x'), member(name)])).toBeNull();
      expect(() => formatPath([member(name)])).toThrow(RangeError);
    }
    expect(formatSegments([member('a')], '$')).toBe('$.a');
  });
});

describe('§5.2 resolution of the pinned readings', () => {
  it('$target.0 is a member: it resolves on an object with key "0", not on an array', () => {
    const onObject = applyTransform(on('pre_tool_call', { '0': 'a' }), {
      path: '$target.0',
      value: 'b',
    });
    expect(onObject.ok && onObject.target).toEqual({ '0': 'b' });
    const onArray = applyTransform(on('post_tool_call', ['a']), {
      path: '$target.0',
      value: 'b',
    });
    expect(onArray).toMatchObject({ ok: false, reason: HOST_ERRORS.transformInvalid });
  });

  it('$target[007] is index 7 of an array; on an object it does not resolve', () => {
    const list = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const onArray = applyTransform(on('post_tool_call', list), {
      path: '$target[007]',
      value: 'H',
    });
    expect(onArray.ok && onArray.target).toEqual([...list.slice(0, 7), 'H']);
    const onObject = applyTransform(on('pre_tool_call', { '7': 'x' }), {
      path: '$target[007]',
      value: 1,
    });
    expect(onObject).toMatchObject({ ok: false, reason: HOST_ERRORS.transformInvalid });
  });

  it('an unsafe index and a quoted dotted key are transform_invalid when applied', () => {
    for (const path of [
      '$target[99999999999999999999]',
      '$target["a.b"]',
      '$target["with space"]',
    ]) {
      const out = applyTransform(on('pre_tool_call', { 'a.b': 1, 'with space': 2 }), {
        path,
        value: 0,
      });
      expect(out).toMatchObject({ ok: false, reason: HOST_ERRORS.transformInvalid });
    }
  });
});

describe('pathsOverlap (one path a prefix of the other)', () => {
  const m = (name: string): PathSegment => ({ kind: 'member', name });
  const i = (index: number): PathSegment => ({ kind: 'index', index });

  it('is true for equal paths, the root and either path extending the other', () => {
    expect(pathsOverlap([m('a'), i(0)], [m('a'), i(0)])).toBe(true);
    expect(pathsOverlap([], [m('a')])).toBe(true);
    expect(pathsOverlap([m('a')], [m('a'), i(0), m('b')])).toBe(true);
    expect(pathsOverlap([m('a'), i(0), m('b')], [m('a')])).toBe(true);
  });

  it('is false once a segment differs, in name, index or kind', () => {
    expect(pathsOverlap([m('a')], [m('b')])).toBe(false);
    expect(pathsOverlap([m('a'), i(0)], [m('a'), i(1)])).toBe(false);
    expect(pathsOverlap([m('a'), m('0')], [m('a'), i(0)])).toBe(false);
    expect(pathsOverlap([i(0), m('x')], [m('0'), m('x')])).toBe(false);
  });
});
