import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueDomainError } from './errors.ts';
import { stringBytes } from './json-strings.ts';
import { checkValueDomain } from './value-domain.ts';

const LIMITS = { maxBytes: 5 * 1024 * 1024, maxDepth: 128 };

function rejection(value: unknown, limits: { maxBytes: number; maxDepth: number } = LIMITS) {
  try {
    checkValueDomain(value, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(ValueDomainError);
    expect((error as ValueDomainError).code).toBe('host_error:context_invalid');
    return (error as Error).message;
  }
  throw new Error('expected a ValueDomainError');
}

const nest = (levels: number) => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { child: value };
  return value;
};

describe('checkValueDomain (§4.4, §12.3)', () => {
  it('accepts JSON values at the 2^53−1 boundaries and with astral text', () => {
    expect(() =>
      checkValueDomain(
        { a: [9007199254740991, -9007199254740991, 0.5, null, true, '\ud83d\ude00'] },
        LIMITS,
      ),
    ).not.toThrow();
  });

  it('names the path and remediation, never the value', () => {
    const message = rejection({ tool_call: { args: { ids: [1, 2 ** 53 + 2] } } });
    expect(message).toBe(
      'integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4 at $.tool_call.args.ids[1]',
    );
    expect(rejection({ 'odd key': { x: Number.NaN } })).toContain('non-finite number');
    expect(rejection({ 'odd key': { x: Number.NaN } })).toContain('$["odd key"].x');
  });

  it('refuses in-process numbers iff non-finite or 2^53 ≤ |x| < 1e21 (§10.2, ECMA-262)', () => {
    for (const x of [2 ** 53, -(2 ** 53), 1e16, 1e20, 999999999999999900000]) {
      expect(rejection({ x })).toContain('integer exceeds 2^53; string-encode 64-bit identifiers');
    }
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(rejection({ x })).toContain('non-finite number');
    }
    for (const x of [
      2 ** 53 - 1,
      1e21,
      -1e21,
      9.999999999999997e22,
      Number.MAX_VALUE,
      -0,
      5e-324,
    ]) {
      expect(() => checkValueDomain({ x }, LIMITS)).not.toThrow();
    }
  });

  it('accepts strings and keys containing U+0000 (§4.4)', () => {
    expect(() => checkValueDomain({ 'a\u0000': ['\u0000', 'x\u0000y'] }, LIMITS)).not.toThrow();
  });

  it('rejects lone surrogates in strings and in keys', () => {
    expect(rejection({ a: ['fine', 'bad\udbff'] })).toBe(
      'string contains a lone surrogate; send well-formed UTF-16 (§4.4) at $.a[1]',
    );
    expect(rejection({ '\ud800': 1 })).toContain('object key contains a lone surrogate');
  });

  it('rejects non-JSON values', () => {
    expect(rejection([1, undefined])).toContain('undefined is not a JSON value; use null at $[1]');
    expect(rejection({ d: new Date(0) })).toContain(
      'a Date object is not a JSON value; pass plain objects and arrays only at $.d',
    );
    expect(rejection({ b: 1n })).toContain('bigint');
    expect(rejection({ f() {} })).toContain('function');
  });

  it('counts nesting in containers: 128 levels pass, 129 fail, 10^6 fail without a stack overflow', () => {
    expect(() => checkValueDomain(nest(128), LIMITS)).not.toThrow();
    expect(rejection(nest(129))).toContain('depth limit of 128');
    expect(rejection(nest(1_000_000))).toContain('depth limit of 128');
    expect(rejection(nest(3), { maxBytes: 1000, maxDepth: 2 })).toContain('at $.child.child');
  });

  it('accepts a deep value under a raised limit even past the recursive scan’s stack', () => {
    expect(() =>
      checkValueDomain(nest(100_000), { maxBytes: 1e9, maxDepth: 200_000 }),
    ).not.toThrow();
  });

  it('measures the UTF-8 bytes of the JSON text exactly (§12.3)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const value = JSON.parse(text, (_k, v) =>
          typeof v === 'number' && Math.abs(v) > Number.MAX_SAFE_INTEGER ? 0.5 : v,
        );
        const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
        expect(() => checkValueDomain(value, { maxBytes: bytes, maxDepth: 1000 })).not.toThrow();
        expect(() => checkValueDomain(value, { maxBytes: bytes - 1, maxDepth: 1000 })).toThrow(
          /size limit of/,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('counts escapes and multi-byte characters in string sizes', () => {
    for (const s of ['', 'a"b\\c', '\u0000\u001f\n\t', 'é€😀', '/']) {
      expect(stringBytes(s)).toBe(Buffer.byteLength(JSON.stringify(s), 'utf8'));
    }
  });

  it('rejects a context over the default 5 MiB and names the limit', () => {
    const big = { target: 'x'.repeat(5 * 1024 * 1024) };
    expect(rejection(big)).toContain('exceeds the size limit of 5242880 bytes (§12.3)');
    expect(() => checkValueDomain({ target: 'x'.repeat(1024) })).not.toThrow();
  });

  it('treats a cycle as a depth breach', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.again = cyclic;
    expect(rejection(cyclic)).toContain('cyclic');
  });
});
