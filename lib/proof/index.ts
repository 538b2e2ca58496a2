/**
 * The Merkle tree of the transparency log (RFC 9162 §2.1): hashing, the
 * store-backed planner and assembler the server uses, and the verifiers an
 * offline auditor uses. Pure: bytes in, hashes out; no database, no network.
 */
export { HASH_SIZE, emptyRoot, isHash, leafHash, nodeHash, sameHash } from './hash.ts';
export {
  type LeafRange,
  type PerfectSubtree,
  type ProofPlan,
  consistencyPlan,
  inclusionPlan,
  isTreeNode,
  perfectCover,
  rootPlan,
  splitPoint,
  subtreeKey,
} from './plan.ts';
export {
  EMPTY_FRONTIER,
  type Frontier,
  MerkleStoreError,
  type MerkleStoreErrorCode,
  type StoredSubtree,
  type SubtreeLookup,
  appendLeaves,
  assembleConsistency,
  assembleInclusion,
  assembleNode,
  assembleRoot,
  frontierRoot,
} from './merkle.ts';
export { verifyConsistency, verifyInclusion } from './verify.ts';
export { InclusionBatchVerifier, verifyInclusionBatch } from './batch.ts';
export { fromBase64, fromHex, hashFromBase64, hashFromHex, toBase64, toHex } from './encoding.ts';
