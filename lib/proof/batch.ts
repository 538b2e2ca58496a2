import { hash } from 'node:crypto';
import { hashFromHex, toHex } from './encoding.ts';
import { isHash, nodeHash } from './hash.ts';

/**
 * Verifying many inclusion proofs against one tree head (an export: a
 * subset of the leaves, each with its own proof). Checked one by one, k
 * records cost k full paths of hashing; here every node a successful proof
 * established (its computed ancestors and its proof's siblings, all bound to
 * the root by that proof) is remembered by its range, so the next proof
 * hashes only until it reaches a node already known, and there its hash
 * must be exactly the known one. Verifying every leaf in order then costs
 * about one hash per record instead of log n.
 *
 * It is still a full verification, with the same answer as
 * `verifyInclusion` for every input (up to a SHA-256 collision):
 * - a node is remembered only after a proof through it reached the root;
 * - a computed hash that differs from a remembered one for the same range
 *   fails at once, since no valid proof can produce two hashes for one node;
 * - the proof's elements above the meeting point are not hashed but still
 *   compared with the remembered siblings, so a proof with a tampered
 *   element anywhere fails, as `verifyInclusion` would fail it;
 * - the proof must have exactly the RFC length for (index, size).
 * Remembered nodes are closed upwards: with a node, its parent and its
 * sibling are known, so the comparison above the meeting point always finds
 * what it compares with.
 *
 * Nodes are remembered as lowercase hex, so `verifyHex` can check an
 * export's JSON strings by comparison and decode only the few it hashes.
 */
export class InclusionBatchVerifier {
  readonly size: number;
  private readonly known = new Map<number, string>();
  private readonly usable: boolean;
  // Scratch for one path, bottom-up; 64 levels cover any safe-integer size.
  private readonly sibStart = new Float64Array(64);
  private readonly sibEnd = new Float64Array(64);
  private readonly parentStart = new Float64Array(64);
  private readonly parentEnd = new Float64Array(64);
  private readonly computed: string[] = new Array(64);

  constructor(size: number, root: Uint8Array) {
    this.size = size;
    // Keys are start·64 + height, exact while start < 2^47.
    this.usable = Number.isSafeInteger(size) && size > 0 && size <= 2 ** 47 && isHash(root);
    if (this.usable) this.known.set(nodeKey(0, size), toHex(root));
  }

  /** Number of nodes remembered (for measuring; memory grows with it). */
  get knownNodes(): number {
    return this.known.size;
  }

  /** Same contract as `verifyInclusion(leafHash, index, this.size, proof, root)`. */
  verify(leafHash: Uint8Array, index: number, proof: readonly Uint8Array[]): boolean {
    if (!isHash(leafHash) || !Array.isArray(proof) || !proof.every(isHash)) return false;
    return this.check(toHex(leafHash), leafHash, index, proof, toHex, hexEqualsBytes, identity);
  }

  /**
   * The same with hashes as lowercase hex (64 characters), as an export
   * carries them; anything else (uppercase, other lengths) fails. The walk
   * of `check` written out for strings (an export's every line runs it):
   * compared elements are compared as they are, and a hashed one is decoded
   * (strictly) straight into the node's hash input, whose digest comes out
   * as hex to be compared and remembered.
   */
  verifyHex(leafHash: string, index: number, proof: readonly string[]): boolean {
    if (!isHexHash(leafHash) || !Array.isArray(proof)) return false;
    if (!this.usable || !Number.isSafeInteger(index) || index < 0 || index >= this.size) {
      return false;
    }
    const depth = this.walk(index);
    if (proof.length !== depth) return false;
    for (let i = 0; i < depth; i++) if (!isHexHash(proof[i])) return false;

    const { known, sibStart, sibEnd, parentStart, parentEnd, computed } = this;
    const leafKey = nodeKey(index, index + 1);
    const leafKnown = known.get(leafKey);
    if (leafKnown !== undefined && leafKnown !== leafHash) return false;
    let met = leafKnown !== undefined;
    let fresh = 0;
    let cur = leafHash;
    // The path is stored top-down: level i (from the leaf) is at depth - 1 - i.
    for (let i = 0, j = depth - 1; i < depth; i++, j--) {
      if (met) {
        if (known.get(nodeKey(sibStart[j], sibEnd[j])) !== proof[i]) return false;
        continue;
      }
      const left = sibStart[j] === parentStart[j];
      if (!decodeHash(proof[i] as string, NODE_INPUT, left ? 1 : 33)) return false;
      if (!decodeHash(cur, NODE_INPUT, left ? 33 : 1)) return false;
      cur = hash('sha256', NODE_INPUT, 'hex');
      computed[i] = cur;
      fresh = i + 1;
      const parentKnown = known.get(nodeKey(parentStart[j], parentEnd[j]));
      if (parentKnown !== undefined) {
        if (parentKnown !== cur) return false;
        met = true;
      }
    }
    if (!met) return false;
    known.set(leafKey, leafHash);
    for (let i = 0, j = depth - 1; i < fresh; i++, j--) {
      known.set(nodeKey(sibStart[j], sibEnd[j]), proof[i] as string);
      if (i < fresh - 1) known.set(nodeKey(parentStart[j], parentEnd[j]), computed[i] as string);
    }
    return true;
  }

  /**
   * The walk over bytes (`verify`; `verifyHex` is the same walk over
   * strings): `hex` gives an element's hex (to remember), `same` compares it
   * with a remembered hex, `bytes` gives its bytes (to hash), or null when it
   * is no hash. Compared elements need no
   * decoding: equal to a remembered, well-formed hash is well-formed.
   */
  private check<T>(
    leafHex: string,
    leafBytes: Uint8Array | null,
    index: number,
    proof: readonly T[],
    hex: (e: T) => string,
    same: (known: string | undefined, e: T) => boolean,
    bytes: (e: T) => Uint8Array | null,
  ): boolean {
    if (!this.usable || !Number.isSafeInteger(index) || index < 0 || index >= this.size) {
      return false;
    }
    const depth = this.walk(index);
    if (proof.length !== depth) return false;

    const { known, sibStart, sibEnd, parentStart, parentEnd, computed } = this;
    const leafKey = nodeKey(index, index + 1);
    const leafKnown = known.get(leafKey);
    if (leafKnown !== undefined && leafKnown !== leafHex) return false;
    let met = leafKnown !== undefined; // reached a node a verified proof established
    let fresh = 0; // proof steps hashed below the meeting point
    let cur: Uint8Array | null = met ? null : (leafBytes ?? hashFromHex(leafHex));
    // The path is stored top-down: level i (from the leaf) is at depth - 1 - i.
    for (let i = 0, j = depth - 1; i < depth; i++, j--) {
      if (met) {
        if (!same(known.get(nodeKey(sibStart[j], sibEnd[j])), proof[i])) return false;
        continue;
      }
      const sibling = bytes(proof[i]);
      if (cur === null || sibling === null) return false;
      // The sibling is on the left exactly when it starts where the parent does.
      cur = sibStart[j] === parentStart[j] ? nodeHash(sibling, cur) : nodeHash(cur, sibling);
      const curHex = toHex(cur);
      computed[i] = curHex;
      fresh = i + 1;
      const parentKnown = known.get(nodeKey(parentStart[j], parentEnd[j]));
      if (parentKnown !== undefined) {
        if (parentKnown !== curHex) return false;
        met = true;
      }
    }
    // The root is known from the start, so a proof of the right length always meets.
    if (!met) return false;
    // Success: the leaf, the new parents and their siblings become known.
    known.set(leafKey, leafHex);
    for (let i = 0, j = depth - 1; i < fresh; i++, j--) {
      known.set(nodeKey(sibStart[j], sibEnd[j]), hex(proof[i]));
      if (i < fresh - 1) known.set(nodeKey(parentStart[j], parentEnd[j]), computed[i]);
    }
    return true;
  }

  /**
   * Fills the scratch arrays with the path of `index` (sibling and parent
   * ranges, top-down: the leaf's level last) and returns its length, the RFC
   * proof length.
   */
  private walk(index: number): number {
    let lo = 0;
    let hi = this.size;
    let depth = 0;
    // Top-down, as the RFC recursion splits.
    while (hi - lo > 1) {
      const k = splitPoint(hi - lo);
      this.parentStart[depth] = lo;
      this.parentEnd[depth] = hi;
      if (index < lo + k) {
        this.sibStart[depth] = lo + k;
        this.sibEnd[depth] = hi;
        hi = lo + k;
      } else {
        this.sibStart[depth] = lo;
        this.sibEnd[depth] = lo + k;
        lo += k;
      }
      depth++;
    }
    return depth;
  }
}

/** Verifies each entry against one tree head; the answer for entry i is at i. */
export function verifyInclusionBatch(
  size: number,
  root: Uint8Array,
  entries: Iterable<{ leafHash: Uint8Array; index: number; proof: readonly Uint8Array[] }>,
): boolean[] {
  const verifier = new InclusionBatchVerifier(size, root);
  return Array.from(entries, (e) => verifier.verify(e.leafHash, e.index, e.proof));
}

const identity = <T>(x: T) => x;

// Compares without encoding: the comparison above the meeting point is most
// of the work per record, and an allocation per element would double it.
const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
function hexEqualsBytes(known: string | undefined, e: Uint8Array): boolean {
  if (known === undefined || known.length !== e.length * 2) return false;
  for (let i = 0; i < e.length; i++) {
    const pair = HEX_PAIRS[e[i]];
    if (known.charCodeAt(2 * i) !== pair.charCodeAt(0)) return false;
    if (known.charCodeAt(2 * i + 1) !== pair.charCodeAt(1)) return false;
  }
  return true;
}

/** The hash input of a node: 0x01, then the left and the right child. */
const NODE_INPUT = Buffer.alloc(65, 1);

const HEX_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[97 + c] = 10 + c;
  return t;
})();

/**
 * Decodes 64 lowercase hex characters into out[at, at + 32); false for any
 * other character (as `hashFromHex` refuses it), in one pass.
 */
function decodeHash(hex: string, out: Uint8Array, at: number): boolean {
  for (let i = 0; i < 32; i++) {
    const hi = hex.charCodeAt(2 * i);
    const lo = hex.charCodeAt(2 * i + 1);
    const h = hi < 128 ? (HEX_VALUE[hi] as number) : -1;
    const l = lo < 128 ? (HEX_VALUE[lo] as number) : -1;
    if ((h | l) < 0) return false;
    out[at + i] = (h << 4) | l;
  }
  return true;
}

// Only the shape here; a hashed element is then decoded strictly, and a
// compared one must equal a remembered lowercase hash.
const isHexHash = (x: unknown): x is string => typeof x === 'string' && x.length === 64;

function splitPoint(n: number): number {
  // A shift, not `**`: this runs once per level of every proof checked.
  if (n <= 2 ** 31) return 1 << (31 - Math.clz32(n - 1));
  let k = 2 ** 31;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Height of a node of `size` leaves: ⌈log2 size⌉; with its start it names the node. */
function height(size: number): number {
  if (size <= 2 ** 31) return size === 1 ? 0 : 32 - Math.clz32(size - 1);
  let h = 31;
  while (2 ** h < size) h++;
  return h;
}

function nodeKey(start: number, end: number): number {
  return start * 64 + height(end - start);
}
