import { emptyRoot, isHash, nodeHash } from './hash.ts';
import {
  consistencyPlan,
  inclusionPlan,
  type LeafRange,
  type PerfectSubtree,
  perfectCover,
  subtreeKey,
} from './plan.ts';

/**
 * The store-backed generator: roots and proofs computed from stored perfect
 * subtree hashes (see plan.ts for the model), so a log of millions of leaves
 * answers a proof with one batched read of O(log n) rows and O(log n)
 * hashing, and appends a batch in O(batch + log n).
 */

/** A perfect subtree with its hash, as stored. */
export interface StoredSubtree extends PerfectSubtree {
  readonly hash: Uint8Array;
}

/**
 * Fetched perfect-subtree hashes: a `Map` keyed by `subtreeKey(level,
 * index)`, or a function answering undefined for one it does not have.
 */
export type SubtreeLookup =
  | ReadonlyMap<string, Uint8Array>
  | ((level: number, index: number) => Uint8Array | undefined);

export type MerkleStoreErrorCode = 'subtree_missing' | 'frontier_invalid';

/**
 * The store does not hold what the tree needs. The generator refuses rather
 * than answer a proof that cannot verify: a missing or malformed subtree
 * means lost or damaged log storage, which the operator must see.
 */
export class MerkleStoreError extends Error {
  readonly code: MerkleStoreErrorCode;
  constructor(code: MerkleStoreErrorCode, message: string) {
    super(message);
    this.name = 'MerkleStoreError';
    this.code = code;
  }
}

function fetcher(lookup: SubtreeLookup): (s: PerfectSubtree) => Uint8Array {
  const get =
    typeof lookup === 'function'
      ? lookup
      : (level: number, index: number) => lookup.get(subtreeKey(level, index));
  return ({ level, index }) => {
    const hash = get(level, index);
    if (!isHash(hash)) {
      throw new MerkleStoreError(
        'subtree_missing',
        `perfect subtree (level ${level}, index ${index}) is ${hash === undefined ? 'missing' : 'not a 32-byte hash'}`,
      );
    }
    return hash;
  };
}

/** MTH of consecutive perfect subtrees as the RFC recursion combines them: a right fold. */
function foldRight(hashes: readonly Uint8Array[]): Uint8Array {
  let acc = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i], acc);
  return acc;
}

function nodeOf(range: LeafRange, get: (s: PerfectSubtree) => Uint8Array): Uint8Array {
  return foldRight(perfectCover(range.start, range.end).map(get));
}

/** MTH(D[start:end]) of a tree node from its stored perfect subtrees. */
export function assembleNode(start: number, end: number, lookup: SubtreeLookup): Uint8Array {
  return nodeOf({ start, end }, fetcher(lookup));
}

/** MTH(D[0:size]); the empty root for size 0. The subtrees needed are `rootPlan(size)`. */
export function assembleRoot(size: number, lookup: SubtreeLookup): Uint8Array {
  return size === 0 ? emptyRoot() : assembleNode(0, size, lookup);
}

/** PATH(index, D[size]) (§2.1.3.1); fetch `inclusionPlan(index, size).subtrees` first. */
export function assembleInclusion(
  index: number,
  size: number,
  lookup: SubtreeLookup,
): Uint8Array[] {
  const get = fetcher(lookup);
  return inclusionPlan(index, size).nodes.map((r) => nodeOf(r, get));
}

/** PROOF(m, D[n]) (§2.1.4.1); fetch `consistencyPlan(m, n).subtrees` first. */
export function assembleConsistency(m: number, n: number, lookup: SubtreeLookup): Uint8Array[] {
  const get = fetcher(lookup);
  return consistencyPlan(m, n).nodes.map((r) => nodeOf(r, get));
}

/**
 * The compact range of a tree: the perfect subtrees of `perfectCover(0,
 * size)`, i.e. one per set bit of size, largest (leftmost) first. It is all
 * an appender needs to keep in memory, and its right fold is the root.
 */
export interface Frontier {
  readonly size: number;
  readonly subtrees: readonly StoredSubtree[];
}

export const EMPTY_FRONTIER: Frontier = Object.freeze({ size: 0, subtrees: Object.freeze([]) });

function assertFrontier(frontier: Frontier): void {
  const { size, subtrees } = frontier;
  const expected = size === 0 ? [] : perfectCover(0, size);
  const ok =
    expected.length === subtrees.length &&
    expected.every(
      (s, i) =>
        s.level === subtrees[i].level && s.index === subtrees[i].index && isHash(subtrees[i].hash),
    );
  if (!ok) {
    throw new MerkleStoreError(
      'frontier_invalid',
      `frontier does not match the compact range of size ${size}`,
    );
  }
}

/** Root of the tree a frontier describes. */
export function frontierRoot(frontier: Frontier): Uint8Array {
  assertFrontier(frontier);
  if (frontier.size === 0) return emptyRoot();
  return foldRight(frontier.subtrees.map((s) => s.hash));
}

/**
 * Appends leaves (their leaf hashes, `leafHash(data)`) to the tree a
 * frontier describes. Returns every perfect subtree that now exists and did
 * not before (the leaves themselves at level 0 included), in creation order,
 * for the caller to store with the leaves in one transaction, and the new
 * frontier. Like incrementing a binary counter: each leaf merges equal-level
 * subtrees at the right edge.
 */
export function appendLeaves(
  frontier: Frontier,
  leafHashes: readonly Uint8Array[],
): { created: StoredSubtree[]; frontier: Frontier } {
  assertFrontier(frontier);
  const stack = [...frontier.subtrees];
  const created: StoredSubtree[] = [];
  let size = frontier.size;
  for (const hash of leafHashes) {
    if (!isHash(hash)) throw new TypeError('a leaf hash must be 32 bytes');
    let top: StoredSubtree = { level: 0, index: size, hash };
    created.push(top);
    while (stack.length > 0 && stack[stack.length - 1].level === top.level) {
      const left = stack.pop()!;
      top = { level: top.level + 1, index: left.index / 2, hash: nodeHash(left.hash, top.hash) };
      created.push(top);
    }
    stack.push(top);
    size++;
  }
  return { created, frontier: { size, subtrees: stack } };
}
