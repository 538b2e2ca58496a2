import { hash } from 'node:crypto';

/**
 * The RFC 9162 §2.1.1 hashing of a Merkle tree with SHA-256. Domain
 * separation (0x00 before a leaf, 0x01 before two children) is what stops a
 * leaf from being passed off as an interior node (a second-preimage attack
 * on the tree); it is in the RFC and every CT log, so we do not vary it.
 */

/** Bytes in every hash here (SHA-256). */
export const HASH_SIZE = 32;

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

// One-shot `crypto.hash` over one buffer: a streaming `createHash` crosses
// into C++ once per `update`, which triples the cost of a 65-byte input.
// Answered as a plain Uint8Array view (no copy), so callers and tests see one type.
function sha256(bytes: Uint8Array): Uint8Array {
  const digest = hash('sha256', bytes, 'buffer');
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

/** MTH of a one-leaf tree: SHA-256(0x00 || data). */
export function leafHash(data: Uint8Array): Uint8Array {
  const input = new Uint8Array(data.length + 1);
  input[0] = LEAF_PREFIX;
  input.set(data, 1);
  return sha256(input);
}

/** An interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  // The common case reuses one buffer (hashing is synchronous and reads it
  // once); an allocation per node is a third of the cost of a verification.
  const size = 1 + left.length + right.length;
  const input = size === NODE_INPUT.length ? NODE_INPUT : new Uint8Array(size);
  input[0] = NODE_PREFIX;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

const NODE_INPUT = new Uint8Array(1 + 2 * HASH_SIZE);

const EMPTY_ROOT = sha256(new Uint8Array(0));

/** MTH of the empty tree: SHA-256 of the empty string (§2.1.1). */
export function emptyRoot(): Uint8Array {
  // A copy (Buffer#slice would share memory), so a caller mutating the
  // result cannot change every later answer.
  return new Uint8Array(EMPTY_ROOT);
}

/** True when both are hashes of the right size with the same bytes. */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== HASH_SIZE || b.length !== HASH_SIZE) return false;
  for (let i = 0; i < HASH_SIZE; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A value a verifier can use as a hash: exactly 32 bytes. */
export function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}
