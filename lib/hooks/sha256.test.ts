import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { portableSha256Hex, sha256Hex } from './sha256.ts';

const nodeHex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

describe('sha256Hex', () => {
  it('has the FIPS 180-4 digests of "" and "abc" on both paths', () => {
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const abc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    for (const hex of [sha256Hex, portableSha256Hex]) {
      expect(hex('')).toBe(empty);
      expect(hex('abc')).toBe(abc);
    }
  });

  it('the portable path hashes the same UTF-8 bytes as Node’s, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 300 }), (s) => {
        expect(portableSha256Hex(s)).toBe(nodeHex(s));
        expect(sha256Hex(s)).toBe(nodeHex(s));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees across the compression-block boundaries and on a large text', () => {
    for (const n of [55, 56, 63, 64, 65, 119, 120, 128, 1_000_003]) {
      const s = 'é'.repeat(n >> 1) + 'a'.repeat(n & 1);
      expect(portableSha256Hex(s)).toBe(nodeHex(s));
    }
  });
});

describe('the implementation sha256Hex picks on its first call', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });
  const abc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

  it('asks the runtime for node:crypto and uses it (the Node fast path)', async () => {
    vi.resetModules();
    const getBuiltin = vi.spyOn(process, 'getBuiltinModule');
    const fresh = await import('./sha256.ts');
    expect(fresh.sha256Hex('abc')).toBe(abc);
    expect(getBuiltin).toHaveBeenCalledWith('node:crypto');
  });

  it('falls back to @noble/hashes where the runtime hands out no node:crypto (a browser)', async () => {
    vi.resetModules();
    const getBuiltin = vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    const fresh = await import('./sha256.ts');
    expect(fresh.sha256Hex('abc')).toBe(abc);
    expect(fresh.sha256Hex('a\ud800')).toBe(nodeHex('a\ud800'));
    expect(getBuiltin).toHaveBeenCalledTimes(1);
  });
});
