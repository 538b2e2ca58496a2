import 'server-only';
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt (node:crypto), encoded as
 * `scrypt$N$r$p$salt$hash` (salt and hash base64url) so that the cost can be
 * raised later without invalidating stored hashes.
 */

export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1, keyLength: 64, saltLength: 16 } as const;

/** Passwords we accept: long enough to resist guessing, short enough to bound work. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

type Params = { N: number; r: number; p: number };

function derive(password: string, salt: Buffer, params: Params, keyLength: number) {
  // scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is exactly N=2^15,r=8.
  const maxmem = 256 * params.N * params.r;
  return new Promise<Buffer>((resolve, reject) => {
    scryptCb(password.normalize('NFKC'), salt, keyLength, { ...params, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMS;
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, { N, r, p }, keyLength);
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

type Parsed = Params & { salt: Buffer; hash: Buffer };

function parse(encoded: string): Parsed | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((v) => (/^\d{1,10}$/.test(v) ? Number(v) : Number.NaN));
  // Refuse parameters that would make verification absurdly slow or trivial.
  const powerOfTwo = Number.isInteger(Math.log2(N));
  if (!powerOfTwo || N < 2 ** 10 || N > 2 ** 20 || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) {
    return null;
  }
  const salt = Buffer.from(parts[4], 'base64url');
  const hash = Buffer.from(parts[5], 'base64url');
  if (salt.length < 8 || hash.length < 16) return null;
  return { N, r, p, salt, hash };
}

/**
 * Checks a password against an encoded hash in constant time. A malformed
 * or missing hash verifies as false (after doing the same work), never throws.
 */
export async function verifyPassword(password: string, encoded: string | null): Promise<boolean> {
  const parsed = encoded ? parse(encoded) : null;
  if (!parsed) {
    await verifyPassword(password, await dummyHash());
    return false;
  }
  const key = await derive(password, parsed.salt, parsed, parsed.hash.length);
  return timingSafeEqual(key, parsed.hash);
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random password, to verify against when the email is unknown
 * so that response time does not tell which emails have accounts.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}

/** Whether a stored hash was made with weaker parameters than today's. */
export function needsRehash(encoded: string): boolean {
  const parsed = parse(encoded);
  return !parsed || parsed.N < SCRYPT_PARAMS.N || parsed.r < SCRYPT_PARAMS.r;
}

/** A strong random password (for the first admin when none is configured). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
