import 'server-only';
import {
  assembleInclusion,
  inclusionPlan,
  type PerfectSubtree,
  subtreeKey,
  toHex,
} from '@/lib/proof';
import { type Db, fetchSubtrees } from './store';

/**
 * Inclusion proofs of many leaves of one tree size with ONE read of the
 * perfect subtrees they need (an export chunk: a thousand proofs share most
 * of their upper nodes, so the union is far smaller than a thousand
 * separate reads). A hole in storage throws `MerkleStoreError`
 * (subtree_missing), as `inclusionProof` does.
 */
export async function inclusionProofsBatch(
  prisma: Db,
  indexes: readonly number[],
  size: number,
): Promise<Map<number, string[]>> {
  const wanted = new Map<string, PerfectSubtree>();
  for (const index of indexes) {
    for (const s of inclusionPlan(index, size).subtrees)
      wanted.set(subtreeKey(s.level, s.index), s);
  }
  const hashes = await fetchSubtrees(prisma, [...wanted.values()]);
  const proofs = new Map<number, string[]>();
  for (const index of indexes) proofs.set(index, assembleInclusion(index, size, hashes).map(toHex));
  return proofs;
}
