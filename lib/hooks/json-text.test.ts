import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueDomainError } from './errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { checkValueDomain } from './value-domain.ts';
import { parseJsonText } from './json-text.ts';
import { carryVouches } from './number-domain.ts';

function rejection(text: string, limits?: { maxBytes?: number; maxDepth?: number }) {
  try {
    parseJsonText(text, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(ValueDomainError);
    expect((error as ValueDomainError).code).toBe('host_error:context_invalid');
    return (error as Error).message;
  }
  throw new Error(`expected a ValueDomainError for ${text.slice(0, 40)}`);
}

describe('parseJsonText (§4.4, §12.3)', () => {
  it('parses what JSON.parse parses when the text is in the domain', () => {
    fc.assert(
      fc.property(fc.json({ noUnicodeString: false }), (text) => {
        // fc.json may emit integers beyond 2^53 only via exponents; keep the safe ones.
        const value = JSON.parse(text);
        const safe = JSON.stringify(value, (_k, v) =>
          typeof v === 'number' && Math.abs(v) > Number.MAX_SAFE_INTEGER ? 0 : v,
        );
        expect(parseJsonText(safe)).toEqual(JSON.parse(safe));
      }),
      { numRuns: 500 },
    );
  });

  it('rejects integer tokens beyond ±(2^53−1), before JSON.parse rounds them (§10.2)', () => {
    const big = 'integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4';
    expect(rejection('{"id":9007199254740993}')).toBe(`${big} at $.id`);
    expect(rejection('[9007199254740992]')).toBe(`${big} at $[0]`);
    expect(rejection('[-9007199254740992]')).toContain(big);
    expect(rejection('{"a":[1,{"b":1000000000000000000000}]}')).toBe(`${big} at $.a[1].b`);
    expect(rejection('[1e400]')).toContain('overflows a double');
    expect(rejection('[-1.5E+309]')).toContain('overflows a double');
    expect(rejection('[123456789012345678901234567890]')).not.toContain('123456789');
  });

  it('accepts fraction and exponent tokens whatever their magnitude, if finite (§10.2, RFC 8785)', () => {
    const text = '{"a":[1.0,56.0,-0.0,1e+21,1E21,9.999999999999997e+22,1e16,9007199254740993.0]}';
    const value = parseJsonText(text);
    expect(value).toEqual(JSON.parse(text));
    // ECMA-262 Number::toString, shortest round trip; -0 prints as 0.
    expect(canonicalJson(value)).toBe(
      '{"a":[1,56,0,1e+21,1e+21,9.999999999999997e+22,10000000000000000,9007199254740992]}',
    );
  });

  it('keeps the token verdict through the in-process checks, but not for values written later', () => {
    const ctx = parseJsonText('{"t":{"x":1e16,"y":[2.5E17]},"z":-1.0e19}') as {
      t: { x: number; y: number[]; w?: number };
      z: number;
    };
    expect(() => checkValueDomain(ctx)).not.toThrow();
    expect(canonicalJson(ctx)).toBe(
      '{"t":{"x":10000000000000000,"y":[250000000000000000]},"z":-10000000000000000000}',
    );
    // The same value, written in-process: judged by value (§10.2).
    ctx.t.w = 1e16;
    expect(() => checkValueDomain(ctx)).toThrow(/integer exceeds 2\^53.* at \$\.t\.w/);
    delete ctx.t.w;
    ctx.t.x = 2e16;
    expect(() => checkValueDomain(ctx)).toThrow(/at \$\.t\.x/);
  });

  it('keeps the token verdicts through a shallow copy, not for members it overwrites', () => {
    const t = (parseJsonText('{"t":{"x":1e16,"y":2.5E17}}') as { t: Record<string, number> }).t;
    const copy = { ...t, y: 3e17 };
    expect(() => checkValueDomain(copy)).toThrow(/integer exceeds 2\^53/);
    carryVouches(t, copy);
    expect(() => checkValueDomain({ ...copy, y: 1 })).toThrow(/integer exceeds 2\^53.* at \$\.x/);
    expect(() => checkValueDomain(copy)).toThrow(/at \$\.y/);
    copy.y = 2.5e17;
    expect(() => checkValueDomain(copy)).not.toThrow();
  });

  it('judges a number token on its lexical form: integer tokens by value, others by finiteness', () => {
    const limit = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }), (n) => {
        const ok = n <= limit && n >= -limit;
        if (ok) expect(parseJsonText(`[${n}]`)).toEqual([Number(n)]);
        else expect(() => parseJsonText(`[${n}]`)).toThrow(/integer exceeds 2\^53/);
        for (const token of [`${n}.0`, `${n}e0`, `${n}.00E+0`]) {
          expect(parseJsonText(`[${token}]`)).toEqual([Number(n)]);
        }
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        for (const token of [d.toExponential(), d.toExponential().toUpperCase()]) {
          const parsed = parseJsonText(`{"v":${token}}`);
          expect(parsed).toEqual(JSON.parse(`{"v":${token}}`));
          expect(() => checkValueDomain(parsed)).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepts the 2^53−1 boundaries and string-encoded int64', () => {
    expect(parseJsonText('[9007199254740991,-9007199254740991,"9223372036854775807"]')).toEqual([
      9007199254740991,
      -9007199254740991,
      '9223372036854775807',
    ]);
    expect(parseJsonText('[1e-7,5e-324,-0,0.1,1.5E-3]')).toEqual([1e-7, 5e-324, -0, 0.1, 0.0015]);
  });

  it('does not mistake digits inside strings or keys for numbers', () => {
    expect(parseJsonText('{"9007199254740993":"12345678901234567890"}')).toEqual({
      '9007199254740993': '12345678901234567890',
    });
  });

  it('rejects escaped and raw lone surrogates, but not escaped pairs', () => {
    expect(rejection('{"s":"\\ud800x"}')).toBe('string escapes a lone surrogate (§4.4) at $.s');
    expect(rejection('{"\\udc00":1}')).toContain('object key escapes a lone surrogate');
    expect(rejection('["\ud800"]')).toContain('lone surrogate');
    expect(parseJsonText('["\\ud83d\\ude00","\\\\ud800"]')).toEqual(['\ud83d\ude00', '\\ud800']);
  });

  it('rejects duplicate member names, including escaped spellings (RFC 7493)', () => {
    expect(rejection('{"a":1,"b":{"c":1,"c":2}}')).toBe(
      'duplicate object key; I-JSON (RFC 7493) requires unique member names (§4.4) at $.b.c',
    );
    expect(rejection('{"ab":1,"a\\u0062":2}')).toContain('duplicate object key');
    expect(parseJsonText('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    // Past 16 members the names move to a Set; duplicates are still found.
    const members = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(Object.keys(parseJsonText(`{${members.join(',')}}`) as object)).toHaveLength(40);
    expect(rejection(`{${members.join(',')},"k3":0}`)).toContain('duplicate object key');
    expect(rejection(`{${members.join(',')},"k\\u0033":0}`)).toContain('at $.k3');
    expect(parseJsonText('{"a":{"a":{"a":1}}}')).toEqual({ a: { a: { a: 1 } } });
  });

  it('tracks quotes and backslashes exactly at string ends', () => {
    expect(parseJsonText('{"k\\\\":"v\\"","k":"\\\\"}')).toEqual({ 'k\\': 'v"', k: '\\' });
    expect(rejection('{"k\\\\":1,"k\\\\":2}')).toContain('duplicate');
  });

  it('reports invalid JSON without quoting the text', () => {
    const message = rejection('{"secret-token": tru}');
    expect(message).toMatch(/^invalid JSON: /);
    expect(message).not.toContain('secret');
    expect(rejection('')).toBe('invalid JSON: unexpected end of input');
    expect(rejection('[1,2')).toContain('position 4');
  });

  it('bounds nesting (§12.3): 128 containers pass, 129 fail', () => {
    expect(parseJsonText(`${'['.repeat(128)}${']'.repeat(128)}`)).toBeDefined();
    expect(rejection(`${'['.repeat(129)}${']'.repeat(129)}`)).toContain('depth limit of 128');
    expect(rejection('{"a":{"b":[1]}}', { maxDepth: 2 })).toBe(
      'nesting exceeds the depth limit of 2; flatten it (§12.3) at $.a.b',
    );
    expect(rejection(`${'['.repeat(500_000)}${']'.repeat(500_000)}`)).toContain('depth limit');
  });

  it('bounds size in UTF-8 bytes (§12.3)', () => {
    expect(rejection('"ééé"', { maxBytes: 7 })).toContain('size limit of 7 bytes');
    expect(parseJsonText('"ééé"', { maxBytes: 8 })).toBe('ééé');
  });
});
