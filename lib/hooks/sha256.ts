import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { utf8Bytes } from './utf8.ts';

/**
 * SHA-256 for the §10.2 identity, synchronous in every runtime: the identity
 * is computed on the emission hot path, where Web Crypto's promise-only
 * digest cannot go. Node's own hash is used when the runtime hands it out
 * without a static import (`process.getBuiltinModule`, Node ≥ 20.16), so
 * nothing Node-only reaches a browser bundle; elsewhere the audited,
 * dependency-free @noble/hashes computes the same bytes.
 */

type HexDigest = (text: string) => string;

type NodeCrypto = {
  createHash(algorithm: 'sha256'): {
    update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
};

type MaybeNode = { process?: { getBuiltinModule?: (id: string) => unknown } };

// Chosen on the first hash, never at import (the package is side-effect free).
let chosen: HexDigest | undefined;

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  chosen ??= nodeSha256() ?? portableSha256Hex;
  return chosen(text);
}

/** The runtime-neutral implementation (@noble/hashes); what a browser uses. */
export function portableSha256Hex(text: string): string {
  return bytesToHex(sha256(utf8Bytes(text)));
}

function nodeSha256(): HexDigest | undefined {
  const proc = (globalThis as MaybeNode).process;
  if (typeof proc?.getBuiltinModule !== 'function') return undefined;
  const crypto = proc.getBuiltinModule('node:crypto') as Partial<NodeCrypto> | undefined;
  if (typeof crypto?.createHash !== 'function') return undefined;
  const node = crypto as NodeCrypto;
  return (text) => node.createHash('sha256').update(text, 'utf8').digest('hex');
}
