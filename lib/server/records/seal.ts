import 'server-only';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { sharedSecret } from '@/lib/server/auth/secret';

/**
 * The ingest seal (issue 13 item 3). A record row's chain link is SHA-256,
 * which anyone can compute; a person with a database shell could append a
 * row to a session with the right link, move the chain head, and the log
 * appender could not tell it from what ingest writes. The seal is what they
 * cannot write: HMAC-SHA-256 over the row's identity under a key derived
 * from APP_ENCRYPTION_KEY, which lives in the app's environment (or its
 * DATA_DIR), never in the database. Every process on one database shares
 * that key (db/key-fingerprints.ts), so the worker's appender checks what
 * the app's ingest sealed.
 *
 * The sealed identity is what places the row: host, session, sequence,
 * chain link (chainHash covers the record's canonical JSON), and receivedAt
 * (the appender's time checks rely on it). The id is not known before the
 * insert and is not sealed; a sealed row copied to another id still fails
 * the chain checks, which see the same link twice.
 *
 * Seal v2 (what ingest writes now): the HMAC covers the row's leaf hash
 * (leaf-hash.ts), which covers every field the log hashes (host, session,
 * sequence, chain and previous hash, receivedAt, agent, ticket, the record
 * itself), so the appender can append a row whose v2 seal verifies without
 * reading its record. Stored as `v2:<hex>`; a bare hex seal is v1 (the
 * identity above), checked with the row's columns as before.
 */

/** HKDF info: the purpose label that keeps this key apart from others derived from the same secret. */
export const SEAL_INFO = 'checkpoint record seal v1';

export type SealKey = Buffer;

export type SealedFields = {
  hostId: string;
  sessionId: string;
  sequence: number;
  chainHash: string;
  prevHash: string | null;
  /** ISO 8601 with milliseconds and Z, as the column holds it (timestamp(3), UTC). */
  receivedAt: string;
};

/** The seal key for an APP_ENCRYPTION_KEY value (tests derive others to forge with). */
export function sealKeyFrom(secret: string): SealKey {
  return Buffer.from(hkdfSync('sha256', secret, '', SEAL_INFO, 32));
}

let cached: SealKey | undefined;

/** This process's seal key, derived once. Throws (SharedKeyError) when APP_ENCRYPTION_KEY is required and unset. */
export function sealKey(): SealKey {
  cached ??= sealKeyFrom(sharedSecret('APP_ENCRYPTION_KEY'));
  return cached;
}

/** The bytes sealed: a JSON array, unambiguous whatever a session id holds. */
function message(f: SealedFields): string {
  return JSON.stringify([
    'record',
    f.hostId.toLowerCase(),
    f.sessionId,
    f.sequence,
    f.chainHash,
    f.prevHash,
    f.receivedAt,
  ]);
}

/** Hex HMAC-SHA-256 of the row's identity. */
export function recordSeal(f: SealedFields, key: SealKey = sealKey()): string {
  return createHmac('sha256', key).update(message(f), 'utf8').digest('hex');
}

/** Whether `seal` is the row's seal under `key`, compared in constant time. */
export function sealVerifies(f: SealedFields, seal: string, key: SealKey = sealKey()): boolean {
  return sameHex(seal, recordSeal(f, key));
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Constant-time comparison of a stored hex MAC with the expected one (malformed: false). */
function sameHex(stored: string, expected: string): boolean {
  if (!HEX_SHA256.test(stored)) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(expected, 'hex'));
}

const V2_PREFIX = 'v2:';

/** Whether a stored seal is a v2 seal (over the leaf hash) rather than v1 (over the identity). */
export function isSealV2(seal: string | null): seal is string {
  return seal?.startsWith(V2_PREFIX) ?? false;
}

function leafMac(leafHashHex: string, key: SealKey): string {
  return createHmac('sha256', key)
    .update(JSON.stringify(['record', 2, leafHashHex]), 'utf8')
    .digest('hex');
}

/** The v2 seal of a record row whose leaf hash is `leafHashHex` (lowercase hex). */
export function recordSealV2(leafHashHex: string, key: SealKey = sealKey()): string {
  return `${V2_PREFIX}${leafMac(leafHashHex, key)}`;
}

/** Whether `seal` is the v2 seal of `leafHashHex` under `key`, compared in constant time. */
export function sealV2Verifies(
  leafHashHex: string,
  seal: string,
  key: SealKey = sealKey(),
): boolean {
  if (!isSealV2(seal) || !HEX_SHA256.test(leafHashHex)) return false;
  return sameHex(seal.slice(V2_PREFIX.length), leafMac(leafHashHex, key));
}

/** The seal of the pre-seal watermark (the highest id that may carry no seal). */
export function watermarkSeal(maxId: string, key: SealKey = sealKey()): string {
  return createHmac('sha256', key)
    .update(JSON.stringify(['watermark', maxId]), 'utf8')
    .digest('hex');
}

export function watermarkVerifies(maxId: string, seal: string, key: SealKey = sealKey()): boolean {
  return sameHex(seal, watermarkSeal(maxId, key));
}
