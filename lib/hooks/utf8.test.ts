import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Bytes, utf8Length } from './utf8.ts';

// The oracle: the platform's encoder, which (like Buffer) writes a lone surrogate as U+FFFD.
const oracle = (s: string) => new TextEncoder().encode(s).length;

/** Any UTF-16 unit, with surrogate halves (paired or lone) and astral characters made likely. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

/** Where utf8Length cuts a long string into encodeInto calls (utf8.ts CHUNK). */
const CHUNK = 16_384;

describe('utf8Length', () => {
  it('equals the encoder’s byte count on random strings, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 200 }), (s) => {
        expect(utf8Length(s)).toBe(oracle(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts each width exactly: 1, 2, 3 and 4 bytes, and 3 for a lone surrogate', () => {
    expect(utf8Length('')).toBe(0);
    expect(utf8Length('a')).toBe(1);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('中')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud83d')).toBe(3);
    expect(utf8Length('\ude00')).toBe(3);
    expect(utf8Length('\ude00\ud83d')).toBe(6);
  });

  it('never splits a surrogate pair between chunks of a long string', () => {
    for (const lead of [CHUNK - 2, CHUNK - 1, CHUNK, CHUNK + 1]) {
      for (const tail of ['😀', '😀x', '\ud83d', '\ud83dx', '\ude00', 'é中']) {
        const s = `${'a'.repeat(lead)}${tail}${'b'.repeat(CHUNK)}😀`;
        expect(utf8Length(s), `lead ${lead}, tail ${JSON.stringify(tail)}`).toBe(oracle(s));
      }
    }
  });

  it('equals the encoder on random strings of several chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit, minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        (pieces, chunks) => {
          const filler = 'x'.repeat(CHUNK - 3);
          const s = Array.from(
            { length: chunks },
            (_, i) => filler + pieces[i % pieces.length],
          ).join('');
          expect(utf8Length(s)).toBe(oracle(s));
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('utf8Bytes', () => {
  it('writes a lone surrogate as U+FFFD, like every UTF-8 encoder of the platform', () => {
    expect([...utf8Bytes('a\ud800')]).toEqual([0x61, 0xef, 0xbf, 0xbd]);
    expect(utf8Bytes('😀').length).toBe(4);
  });
});
