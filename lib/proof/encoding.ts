import { HASH_SIZE } from './hash.ts';

/**
 * Text forms of hashes for JSON (exports, API answers, tree heads). Decoders
 * are strict and answer null on anything else: Node's `Buffer.from(s,
 * 'hex')` stops silently at the first bad character and its base64 decoder
 * skips them, so a tampered or truncated value could decode to some other
 * bytes instead of failing.
 */

const HEX = /^(?:[0-9a-f]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Bytes of lowercase hex, or null. */
export function fromHex(text: string): Uint8Array | null {
  if (typeof text !== 'string' || !HEX.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** Standard base64 with padding (RFC 4648 §4). */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Bytes of padded standard base64, or null. */
export function fromBase64(text: string): Uint8Array | null {
  if (typeof text !== 'string' || !BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  // Non-zero unused bits in the last character would let two texts name one value.
  if (bytes.toString('base64') !== text) return null;
  return new Uint8Array(bytes);
}

/** A 32-byte hash from lowercase hex, or null. */
export function hashFromHex(text: string): Uint8Array | null {
  return typeof text === 'string' && text.length === HASH_SIZE * 2 ? fromHex(text) : null;
}

/** A 32-byte hash from padded base64, or null. */
export function hashFromBase64(text: string): Uint8Array | null {
  const bytes = fromBase64(text);
  return bytes !== null && bytes.length === HASH_SIZE ? bytes : null;
}
