import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalOrNull, hasSortedKeys } from './canonical-fast.ts';
import { canonicalJson } from './canonical-json.ts';
import { parseJsonText } from './json-text.ts';

/**
 * The emission's canonicalizer against the general path (canonicalJson) and
 * an independent RFC 8785 implementation: wherever one answers, the other
 * gives the same bytes; wherever the general path refuses, the fast one
 * answers null. Inputs cover unsorted and sorted keys (both fast paths),
 * integer-like keys, unicode (2-, 3-, 4-byte characters, escapes, lone
 * surrogates), vouched numbers, the depth bound and values large enough to
 * be handed to the general path.
 */

const general = (value: unknown, maxDepth: number): string | null => {
  try {
    return canonicalJson(value, { maxDepth });
  } catch {
    return null;
  }
};

function agrees(value: unknown, maxDepth = 128): string | null {
  const fast = canonicalOrNull(value, maxDepth);
  expect(fast).toBe(general(value, maxDepth));
  if (fast !== null) expect(fast).toBe(canonicalize(value));
  return fast;
}

/** Rebuilds every object with its keys inserted in code-unit order, so the sorted path applies. */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const object = value as Record<string, unknown>;
  // fromEntries defines own members, so a "__proto__" key stays a member.
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((k) => [k, sortedCopy(object[k])]),
  );
}

/** Independently of the code under test: does every object list its keys sorted? */
function keysInCodeUnitOrder(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(keysInCodeUnitOrder);
  const keys = Object.keys(value);
  const sorted = [...keys].sort();
  return keys.every((k, i) => k === sorted[i]) && Object.values(value).every(keysInCodeUnitOrder);
}

const unicodeString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000\u001f"\\\b\f\n\r\t', 'crème brûlée', '東京', '😀', '\ud800', 'a\udc00b'),
);
const key = fc.oneof(
  unicodeString,
  fc.constantFrom('10', '9', '1', '', '__proto__', 'a', 'B', '\u00e9', '\ud83d\ude00', 'é'),
);
const { value: jsonLike } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    unicodeString,
    fc.double(),
    fc.integer(),
    fc.constantFrom(0, -0, 2 ** 53, -(2 ** 53), 1e21, 1e16, Number.NaN, true, false, null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
}));

describe('canonicalOrNull agrees with canonicalJson and an independent RFC 8785 oracle', () => {
  it('on arbitrary values, keys in any order, unicode and out-of-domain members', () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        agrees(value);
        agrees({ z: value, a: [value], m: { value } });
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the sorted path for sorted values and still agrees', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const sorted = sortedCopy(value);
        // Integer-like keys ("10", "9") come back in numeric order, which is not code-unit order.
        const inDomain = general(sorted, 128) !== null;
        expect(hasSortedKeys(sorted, 128)).toBe(inDomain && keysInCodeUnitOrder(sorted));
        expect(agrees(sorted)).toBe(general(value, 128));
      }),
      { numRuns: 1000 },
    );
  });

  it('does not take the sorted path for keys JSON.stringify would emit out of code-unit order', () => {
    // Integer-like keys come first in Object.keys order, numerically: "9" before "10".
    const integerKeys = { '9': 1, '10': 2, a: 3 };
    expect(hasSortedKeys(integerKeys, 128)).toBe(false);
    expect(agrees(integerKeys)).toBe('{"10":2,"9":1,"a":3}');
    expect(hasSortedKeys({ b: 1, a: 2 }, 128)).toBe(false);
    // UTF-16 code units, not code points: U+FB01 sorts after U+1F600 (a surrogate pair).
    expect(agrees({ '\ufb01': 1, '\ud83d\ude00': 2 })).toBe('{"😀":2,"ﬁ":1}');
    expect(agrees({ é: 1, e: 2, E: 3 })).toBe('{"E":3,"e":2,"é":1}');
  });

  it('sorts objects with many keys (past insertion sort) like the general path', () => {
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 13, maxLength: 40 }), (keys) => {
        agrees(Object.fromEntries(keys.map((k, i) => [k, i])));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly what the general path refuses', () => {
    class Point {
      x = 1;
    }
    const refused = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 60,
      'lone \ud800',
      { '\udc00': 1 },
      [1, undefined, 2],
      // biome-ignore lint/suspicious/noSparseArray: a hole is outside the domain.
      [1, , 2],
      () => 1,
      Symbol('s'),
      10n,
      new Date(0),
      new Point(),
      new Map(),
      { a: { b: [new Point()] } },
    ];
    for (const value of refused) {
      expect(canonicalOrNull(value, 128)).toBeNull();
      expect(general(value, 128)).toBeNull();
    }
    // Undefined members are absent members on both paths.
    expect(agrees({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(agrees(Object.assign(Object.create(null), { b: 2, a: 1 }))).toBe('{"a":1,"b":2}');
  });

  it('puts the depth bound where the general path does, on both paths', () => {
    for (let depth = 1; depth <= 6; depth++) {
      let unsorted: unknown = 'leaf';
      let sorted: unknown = 'leaf';
      for (let i = 0; i < depth; i++) {
        unsorted = i % 2 ? [unsorted] : { z: unsorted, a: 0 };
        sorted = i % 2 ? [sorted] : { a: 0, z: sorted };
      }
      for (let maxDepth = 0; maxDepth <= 7; maxDepth++) {
        const expected = maxDepth >= depth ? canonicalize(unsorted) : null;
        expect(canonicalOrNull(unsorted, maxDepth)).toBe(expected);
        expect(canonicalOrNull(sorted, maxDepth)).toBe(expected);
        expect(general(unsorted, maxDepth)).toBe(expected);
      }
    }
  });

  it('accepts numbers the JSON-text funnel vouched for, where it put them', () => {
    const parsed = parseJsonText('{"z":[1e16, 2.5e20],"a":{"v":1e16}}') as Record<string, unknown>;
    expect(agrees(parsed)).toBe(
      '{"a":{"v":10000000000000000},"z":[10000000000000000,250000000000000000000]}',
    );
    const sorted = parseJsonText('{"a":{"v":1e16},"z":[1e16]}');
    expect(hasSortedKeys(sorted, 128)).toBe(true);
    expect(agrees(sorted)).toBe('{"a":{"v":10000000000000000},"z":[10000000000000000]}');
    // The same value written in-process is judged by value: refused on both paths.
    expect(agrees({ v: 1e16 })).toBeNull();
  });

  it('hands large values to the general path with the same bytes', () => {
    const big = Array.from({ length: 600 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i}: 東京 😀 "quoted" \n`,
      meta: { z: i, a: [i / 7, -0, true, null] },
    }));
    expect(agrees(big)).not.toBeNull();
    expect(agrees({ messages: big, a: 1 })).not.toBeNull();
    expect(agrees(sortedCopy(big))).not.toBeNull();
    expect(agrees([...big, Number.NaN])).toBeNull();
    // Short arrays of long members: handed over on the text size instead.
    const wide = Array.from({ length: 100 }, (_, i) => ({ z: `東京 ${'x'.repeat(100)}`, a: i }));
    expect(agrees(wide)).not.toBeNull();
    expect(agrees({ b: wide, a: { wide } })).not.toBeNull();
  });
});
