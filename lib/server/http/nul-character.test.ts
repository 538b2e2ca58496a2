import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';
import { assertNoNulCharacter, findNulCharacter } from './nul-character';

describe('findNulCharacter (issue 10 item 12)', () => {
  it('finds none in ordinary JSON, including other control characters', () => {
    expect(findNulCharacter({ a: ['x\u0001', 1, null, true, { b: 'tab\t' }] })).toBeNull();
  });

  it('names the first value in document order, with array positions', () => {
    expect(findNulCharacter({ a: [0, { b: 'x\u0000' }], c: '\u0000' })).toBe('$.a[1].b');
  });

  it('names a member whose key holds NUL, escaped so the path itself has none', () => {
    const path = findNulCharacter({ args: { 'a\u0000b': 1 } });
    expect(path).toBe('$.args["a\\u0000b"]');
    expect(path).not.toContain('\u0000');
  });

  it('brackets names that are not plain identifiers', () => {
    expect(findNulCharacter({ 'order-id': '\u0000' }, 'context')).toBe('context["order-id"]');
  });

  it('assertNoNulCharacter throws 422 nul_character with details.path', () => {
    expect(() => assertNoNulCharacter({ ok: 'yes' })).not.toThrow();
    const err = (() => {
      try {
        assertNoNulCharacter(['\u0000']);
      } catch (e) {
        return e;
      }
    })() as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code, err.details]).toEqual([422, 'nul_character', { path: '$[0]' }]);
  });
});
