import { isHash, nodeHash, sameHash } from './hash.ts';

/**
 * The verifiers of RFC 9162, step for step: §2.1.3.2 for inclusion and
 * §2.1.4.2 for consistency. They take anything (the proof may come from an
 * untrusted export) and answer false rather than throw; a verifier that
 * throws on odd input invites a caller to catch and carry on.
 *
 * Tree sizes and indices are plain numbers; the RFC's shifts are done with
 * arithmetic (`half`) because JavaScript's `>>` truncates to 32 bits.
 */

const half = (x: number) => Math.floor(x / 2);
const odd = (x: number) => x % 2 === 1;
const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

function isProof(proof: unknown): proof is readonly Uint8Array[] {
  return Array.isArray(proof) && proof.every(isHash);
}

/** §2.1.3.2: is `leafHash` the leaf at `index` of the tree of `size` with this root? */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isHash(leafHash) || !isHash(root) || !isProof(proof)) return false;
  if (!isCount(index) || !isCount(size)) return false;
  // 1. leaf_index ≥ tree_size fails.
  if (index >= size) return false;
  // 2.–3.
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  // 4.
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // 5.
  return sn === 0 && sameHash(r, root);
}

/**
 * §2.1.4.2: is the tree of size n with `newRoot` an append-only extension of
 * the tree of size m with `oldRoot`? The RFC's algorithm is for 0 < m < n.
 * For m = n the proof is empty (PROOF(n, D[n]) = SUBPROOF(n, D[n], true) =
 * {}) and the roots must be equal. m = 0 is refused: there is no proof from
 * the empty tree (any tree extends it, which needs no proof and proves
 * nothing about a log), so a caller must treat a size-0 head explicitly.
 */
export function verifyConsistency(
  m: number,
  n: number,
  proof: readonly Uint8Array[],
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
): boolean {
  if (!isHash(oldRoot) || !isHash(newRoot) || !isProof(proof)) return false;
  if (!isCount(m) || !isCount(n) || m === 0 || m > n) return false;
  if (m === n) return proof.length === 0 && sameHash(oldRoot, newRoot);
  // 1. An empty path fails.
  if (proof.length === 0) return false;
  // 2. When m is a power of two the old root is the first node of the path.
  const path = isPowerOfTwo(m) ? [oldRoot, ...proof] : proof;
  // 3.
  let fn = m - 1;
  let sn = n - 1;
  // 4.
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  // 5.
  let fr = path[0];
  let sr = path[0];
  // 6.
  for (let i = 1; i < path.length; i++) {
    const c = path[i];
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // 7.
  return sameHash(fr, oldRoot) && sameHash(sr, newRoot) && sn === 0;
}

function isPowerOfTwo(x: number): boolean {
  let p = 1;
  while (p < x) p *= 2;
  return p === x;
}
