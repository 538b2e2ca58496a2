import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, serializeSorted } from './canonical-json.ts';
import { ValueDomainError } from './errors.ts';

// The oracle: an independent RFC 8785 implementation. Hand-written byte-exact
// fixtures live in conformance/golden/identity.json.
const oracle = (value: unknown) => canonicalize(value) as string;

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1e-7,
  1e-6,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  0.30000000000000004,
  123456789.125,
  9007199254740991,
  -9007199254740991,
  4.5,
  1e20 / 1e10,
  0.000001,
  333333333.3333333,
];

const inDomainNumber = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    min: -9007199254740991,
    max: 9007199254740991,
  }),
  fc.integer(),
  fc.maxSafeInteger(),
);

// Keys and strings drawn from the whole UTF-16 range (astral pairs, controls,
// quotes, backslashes) but well-formed: lone surrogates are out of the domain.
const unicodeString = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u20ac', '\r', '\ud83d\ude00', '\u0000\u001f\u007f', '"\\/', 'e\u0301', ''),
);

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    inDomainNumber,
    unicodeString,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(unicodeString, tie('value'), { maxKeys: 6 }),
})).value;

function rejects(value: unknown, fragment: string, opts?: { maxDepth?: number }) {
  let thrown: unknown;
  try {
    canonicalJson(value, opts);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ValueDomainError);
  expect((thrown as ValueDomainError).code).toBe('host_error:context_invalid');
  expect((thrown as Error).message).toContain(fragment);
  return (thrown as Error).message;
}

describe('canonicalJson (§10.2, RFC 8785)', () => {
  it('is byte-identical to the canonicalize oracle over random JSON values', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(canonicalJson(value)).toBe(oracle(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('serializes identically on the path without a property list', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(serializeSorted(value)).toBe(oracle(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('formats every in-domain double exactly as Number::toString (§10.2)', () => {
    fc.assert(
      fc.property(fc.array(inDomainNumber, { maxLength: 20 }), (numbers) => {
        expect(canonicalJson(numbers)).toBe(oracle(numbers));
      }),
      { numRuns: 2000 },
    );
    expect(canonicalJson([-0, 1e-7, 5e-324, 0.1])).toBe('[0,1e-7,5e-324,0.1]');
  });

  it('matches the oracle on documents with many distinct keys (the non-property-list path)', () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++)
      wide[`k${(i * 7919) % 3000}\u00e9${i % 3 ? '\ud83d\ude00' : ''}`] = { i };
    wide.__proto_like = [1];
    expect(canonicalJson(wide)).toBe(oracle(wide));
    // Past 4096 distinct keys the scan stops collecting them.
    const wider = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`w${4999 - i}`, i]));
    expect(canonicalJson([wider, { a: 1 }])).toBe(oracle([wider, { a: 1 }]));
  });

  it('orders members by UTF-16 code units, not code points', () => {
    // By code point U+FB33 < U+1F600; by UTF-16 code unit 0xD83D (U+1F600's
    // high surrogate) < 0xFB33, so the emoji key must come first.
    const value = { '\u20ac': 1, '\ud83d\ude00': 2, '\r': 3, '\ufb33': 4 };
    expect(canonicalJson(value)).toBe('{"\\r":3,"\u20ac":1,"\ud83d\ude00":2,"\ufb33":4}');
  });

  it('handles a "__proto__" own key and array-index keys in canonical order', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"10":1,"9":2,"a":3}');
    expect(canonicalJson(value)).toBe('{"10":1,"9":2,"__proto__":{"x":1},"a":3}');
    expect(canonicalJson([value, { a: 1 }])).toBe(oracle([value, { a: 1 }]));
  });

  it('orders array-index keys by code units and ignores inherited names on the property-list path', () => {
    expect(canonicalJson({ '10': 1, '9': 2, a: 3, '2': 4 })).toBe('{"10":1,"2":4,"9":2,"a":3}');
    const value = { a: { constructor: 1, toString: 'x' }, b: {}, c: Object.create(null) };
    expect(canonicalJson(value)).toBe('{"a":{"constructor":1,"toString":"x"},"b":{},"c":{}}');
  });

  it('drops undefined object members like JSON.stringify and the oracle', () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });

  it('rejects a number in [2^53, 1e21) with a path and the §4.4 remediation (§10.2)', () => {
    const message = rejects(
      { tool_call: { args: { id: 9007199254740992 } } },
      'integer exceeds 2^53',
    );
    expect(message).toContain('string-encode 64-bit identifiers, see §4.4');
    expect(message).toContain('$.tool_call.args.id');
    expect(message).not.toContain('9007199254740992');
    rejects([999999999999999900000], 'integer exceeds 2^53');
    rejects([-9007199254740992], 'at $[0]');
  });

  it('prints in-process numbers from 1e21 on in exponent form: in the domain (§10.2, ECMA-262)', () => {
    expect(canonicalJson([1e21, -1e21, 1e300, Number.MAX_VALUE, -0, 1e-7])).toBe(
      '[1e+21,-1e+21,1e+300,1.7976931348623157e+308,0,1e-7]',
    );
  });

  it('hashes strings and keys containing U+0000, escaped as \\u0000 (RFC 8785, §4.4)', () => {
    expect(canonicalJson({ 'k\u0000': 'a\u0000b', z: ['\u0000'] })).toBe(
      '{"k\\u0000":"a\\u0000b","z":["\\u0000"]}',
    );
  });

  it('rejects non-finite numbers and lone surrogates in strings and keys (§4.4)', () => {
    rejects({ a: Number.NaN }, 'non-finite');
    rejects([Number.POSITIVE_INFINITY], 'non-finite');
    rejects({ s: 'ok\ud800' }, 'lone surrogate');
    rejects({ 'k\udc00': 1 }, 'object key contains a lone surrogate');
  });

  it('rejects values JSON cannot carry instead of coercing them', () => {
    rejects([undefined], 'undefined is not a JSON value; use null at $[0]');
    rejects(undefined, 'undefined');
    rejects({ f: () => 1 }, 'function is not a JSON value at $.f');
    rejects({ n: 10n }, 'bigint');
    rejects({ when: new Date(0) }, 'a Date object is not a JSON value');
    rejects({ m: new Map() }, 'a Map object');
    rejects({ s: Symbol('x') }, 'symbol');
    // biome-ignore lint/suspicious/noSparseArray: a hole is an undefined element.
    rejects([1, , 3], 'at $[1]');
  });

  it('bounds nesting at maxDepth (§12.3) without overflowing the stack', () => {
    const nest = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    expect(canonicalJson(nest(128))).toBe(`${'['.repeat(128)}1${']'.repeat(128)}`);
    rejects(nest(129), 'depth limit of 128');
    rejects(nest(200_000), 'depth limit of 128');
    expect(canonicalJson(nest(3), { maxDepth: 3 })).toBe('[[[1]]]');
    rejects(nest(4), 'depth limit of 3', { maxDepth: 3 });
    // A caller-raised limit past what the stack holds still fails closed.
    rejects(nest(200_000), 'too deep to canonicalize on this stack', { maxDepth: 1_000_000 });
  });

  it('rejects a cyclic value instead of looping', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    rejects(cyclic, 'cyclic');
  });
});
