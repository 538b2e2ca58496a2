import 'server-only';
import {
  assembleConsistency,
  assembleInclusion,
  consistencyPlan,
  inclusionPlan,
  MerkleStoreError,
  subtreeKey,
  toHex,
} from '@/lib/proof';
import { type Db, fetchSubtrees } from './store';

/**
 * RFC 9162 proofs from storage, each with ONE read of its perfect subtrees
 * (O(log n) primary-key rows), hashes as lowercase hex. The sizes must be
 * committed sizes of the log (the caller checks them against a tree head);
 * a hole in storage throws `MerkleStoreError` (subtree_missing) rather than
 * answer a proof that cannot verify.
 */

export type InclusionProof = { index: number; size: number; leaf_hash: string; proof: string[] };
export type ConsistencyProof = { from: number; to: number; proof: string[] };

export async function inclusionProof(
  prisma: Db,
  index: number,
  size: number,
): Promise<InclusionProof> {
  const plan = inclusionPlan(index, size);
  const leaf = { level: 0, index };
  const hashes = await fetchSubtrees(prisma, [...plan.subtrees, leaf]);
  const proof = assembleInclusion(index, size, hashes);
  const leafHash = hashes.get(subtreeKey(0, index));
  if (!leafHash) {
    throw new MerkleStoreError('subtree_missing', `leaf ${index} is missing from the log`);
  }
  return { index, size, leaf_hash: toHex(leafHash), proof: proof.map(toHex) };
}

export async function consistencyProof(
  prisma: Db,
  from: number,
  to: number,
): Promise<ConsistencyProof> {
  const plan = consistencyPlan(from, to);
  const hashes = await fetchSubtrees(prisma, plan.subtrees);
  return { from, to, proof: assembleConsistency(from, to, hashes).map(toHex) };
}
