import { createHash, randomBytes } from 'node:crypto';

/**
 * The API key format: `ck_` then 40 base62 characters (~238 random bits).
 * Only the SHA-256 of the whole key is stored; the key is shown once.
 */

export const API_KEY_PREFIX = 'ck_';
const RANDOM_LENGTH = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** What authentication accepts: the format, with room for longer keys later. */
const KEY_SHAPE = /^ck_[0-9A-Za-z]{32,128}$/;
/** How much of a key is kept in clear to tell keys apart in lists. */
const DISPLAY_PREFIX_LENGTH = 10;

export type GeneratedApiKey = { key: string; prefix: string; hash: string };

/** A fresh key, its display prefix and its hash. */
export function generateApiKey(): GeneratedApiKey {
  let random = '';
  // Rejection sampling keeps every character uniform: 248 = 4 × 62.
  while (random.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH)) {
      if (byte < 248 && random.length < RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  const key = API_KEY_PREFIX + random;
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** SHA-256 hex of the key: what the database stores and looks up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `value` has the shape of a key (checked before any lookup). */
export function isApiKeyShaped(value: string): boolean {
  return KEY_SHAPE.test(value);
}
