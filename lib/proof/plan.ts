/**
 * Which hashes a proof needs, as ranges of leaves, with no hashing at all:
 * the server turns a plan into one batched query for stored perfect
 * subtrees, then `assemble…` (merkle.ts) computes the answer from what came
 * back. Every function follows the recursive definitions of RFC 9162 §2.1
 * with absolute leaf offsets, so a range here is exactly a node of the
 * RFC's tree.
 */

/** Leaves `[start, end)`: a node of the RFC tree. */
export interface LeafRange {
  readonly start: number;
  readonly end: number;
}

/**
 * A perfect subtree: `2^level` leaves starting at `index · 2^level`. Level 0
 * is a leaf hash. The store keeps these and nothing else; any other node is
 * recomputed from its `perfectCover`.
 */
export interface PerfectSubtree {
  readonly level: number;
  readonly index: number;
}

/** What a proof is made of (`nodes`, in RFC order) and what to fetch for it. */
export interface ProofPlan {
  /** One entry per proof element, in the order the RFC lists them. */
  readonly nodes: readonly LeafRange[];
  /** The perfect subtrees whose hashes compute every node, each once. */
  readonly subtrees: readonly PerfectSubtree[];
}

/** Ranges must stay where doubles count exactly (2^53 leaves is beyond any log). */
const isSize = (n: number) => Number.isSafeInteger(n) && n >= 0;

/** The RFC's split point: the largest power of two smaller than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Smallest power of two ≥ n (n ≥ 1). */
function ceilPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * True when `[start, end)` is a node of some RFC tree: non-empty and
 * starting at a multiple of the smallest power of two that holds it. Only
 * such ranges have an MTH made of stored perfect subtrees; `[3, 5)` is not
 * a node of any tree (it straddles two subtrees) and is refused.
 */
export function isTreeNode(start: number, end: number): boolean {
  return isSize(start) && isSize(end) && start < end && start % ceilPow2(end - start) === 0;
}

function assertNode(start: number, end: number): void {
  if (!isTreeNode(start, end)) {
    throw new RangeError(`[${start}, ${end}) is not a node of a Merkle tree`);
  }
}

/** Level of a perfect range (its size is 2^level), or -1 when the size is not a power of two. */
function perfectLevel(size: number): number {
  let level = 0;
  let p = 1;
  while (p < size) {
    p *= 2;
    level++;
  }
  return p === size ? level : -1;
}

/**
 * The perfect subtrees that make up node `[start, end)`, left to right, as
 * the RFC's recursion splits it: each left half `D[0:k]` is perfect, and the
 * recursion continues into the right part. For `[0, n)` this is the binary
 * decomposition of n (the compact range). MTH of the node is the right fold
 * `node(c0, node(c1, … node(c_{j-1}, c_j)))` of their hashes.
 */
export function perfectCover(start: number, end: number): PerfectSubtree[] {
  assertNode(start, end);
  const out: PerfectSubtree[] = [];
  let lo = start;
  while (lo < end) {
    const n = end - lo;
    const level = perfectLevel(n);
    const k = level >= 0 ? n : splitPoint(n);
    const kLevel = level >= 0 ? level : perfectLevel(k);
    out.push({ level: kLevel, index: lo / k });
    lo += k;
  }
  return out;
}

/** The stored subtrees whose hashes give MTH(D[0:size]); empty for size 0 (the empty root). */
export function rootPlan(size: number): PerfectSubtree[] {
  if (!isSize(size)) throw new RangeError(`invalid tree size ${size}`);
  return size === 0 ? [] : perfectCover(0, size);
}

/** Key of a perfect subtree in a lookup `Map` (see `subtreeKey` users in merkle.ts). */
export function subtreeKey(level: number, index: number): string {
  return `${level}:${index}`;
}

function planOf(nodes: LeafRange[]): ProofPlan {
  const seen = new Map<string, PerfectSubtree>();
  for (const node of nodes) {
    for (const s of perfectCover(node.start, node.end)) seen.set(subtreeKey(s.level, s.index), s);
  }
  return { nodes, subtrees: [...seen.values()] };
}

/**
 * PATH(index, D[size]) of §2.1.3.1: the sibling of every node from the leaf
 * up to the root, leaf side first.
 */
export function inclusionPlan(index: number, size: number): ProofPlan {
  if (!isSize(index) || !isSize(size) || index >= size) {
    throw new RangeError(`no inclusion proof for leaf ${index} in a tree of ${size}`);
  }
  const nodes: LeafRange[] = [];
  let lo = 0;
  let hi = size;
  // Walk down from the root, collecting siblings; the RFC lists them bottom-up.
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      nodes.push({ start: lo + k, end: hi });
      hi = lo + k;
    } else {
      nodes.push({ start: lo, end: lo + k });
      lo += k;
    }
  }
  return planOf(nodes.reverse());
}

/**
 * PROOF(m, D[n]) = SUBPROOF(m, D[n], true) of §2.1.4.1. Defined for
 * 0 < m ≤ n; m = n gives the empty proof.
 */
export function consistencyPlan(m: number, n: number): ProofPlan {
  if (!isSize(m) || !isSize(n) || m === 0 || m > n) {
    throw new RangeError(`no consistency proof from size ${m} to ${n}`);
  }
  const nodes: LeafRange[] = [];
  let lo = 0;
  let hi = n;
  let rel = m; // m relative to lo
  let whole = true; // the RFC's b: is the subtree the old tree's own root?
  while (rel !== hi - lo) {
    const k = splitPoint(hi - lo);
    if (rel <= k) {
      nodes.push({ start: lo + k, end: hi });
      hi = lo + k;
    } else {
      nodes.push({ start: lo, end: lo + k });
      lo += k;
      rel -= k;
      whole = false;
    }
  }
  // SUBPROOF(m, D[m], false) = {MTH(D[m])}: the old tree's node is needed
  // unless it is the old root itself, which the verifier already holds.
  if (!whole) nodes.push({ start: lo, end: hi });
  return planOf(nodes.reverse());
}
