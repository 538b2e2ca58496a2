import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generatePassword,
  hashPassword,
  needsRehash,
  SCRYPT_PARAMS,
  verifyPassword,
} from '@/lib/server/auth/password';

describe('scrypt password hashing', () => {
  it('encodes as scrypt$N$r$p$salt$hash with the configured cost', async () => {
    const encoded = await hashPassword('correct horse battery');
    const [alg, n, r, p, salt, hash] = encoded.split('$');
    expect(alg).toBe('scrypt');
    expect([Number(n), Number(r), Number(p)]).toEqual([2 ** 15, 8, 1]);
    expect(Buffer.from(salt, 'base64url')).toHaveLength(16);
    expect(Buffer.from(hash, 'base64url')).toHaveLength(SCRYPT_PARAMS.keyLength);
  });

  it('derives the hash with scrypt itself (checked independently)', async () => {
    const encoded = await hashPassword('independent check');
    const [, n, r, p, salt, hash] = encoded.split('$');
    const expected = scryptSync('independent check', Buffer.from(salt, 'base64url'), 64, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: 64 * 1024 * 1024,
    });
    expect(Buffer.from(hash, 'base64url').equals(expected)).toBe(true);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const encoded = await hashPassword('s3cret-password!');
    expect(await verifyPassword('s3cret-password!', encoded)).toBe(true);
    expect(await verifyPassword('s3cret-password?', encoded)).toBe(false);
    expect(await verifyPassword('', encoded)).toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    const a = await hashPassword('same password here');
    const b = await hashPassword('same password here');
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password here', b)).toBe(true);
  });

  it('treats missing or malformed hashes as a failed match, without throwing', async () => {
    expect(await verifyPassword('anything at all', null)).toBe(false);
    for (const bad of [
      '',
      'bcrypt$2b$10$abc',
      'scrypt$32768$8$1$c2FsdA',
      'scrypt$3$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA', // N not a power of two
      'scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA', // absurd cost
    ]) {
      expect(await verifyPassword('anything at all', bad)).toBe(false);
    }
  });

  it('runs a full scrypt for an unknown account too (no timing oracle)', async () => {
    const time = async (fn: () => Promise<unknown>) => {
      const start = performance.now();
      await fn();
      return performance.now() - start;
    };
    await verifyPassword('warm up', null); // builds the dummy hash once
    const unknown = await time(() => verifyPassword('wrong guess', null));
    // A full scrypt at N=2^15, r=8 takes tens of ms; a skipped KDF takes < 1 ms.
    // (Only a lower bound: load can slow this down, never speed it up.)
    expect(unknown).toBeGreaterThan(10);
  });

  it('flags weaker stored parameters for rehashing', async () => {
    expect(needsRehash(await hashPassword('current cost'))).toBe(false);
    expect(needsRehash('scrypt$16384$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA')).toBe(true);
  });

  it('generates long random passwords', () => {
    const a = generatePassword();
    expect(a.length).toBeGreaterThanOrEqual(20);
    expect(a).not.toBe(generatePassword());
  });
});
