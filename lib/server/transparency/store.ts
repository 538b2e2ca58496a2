import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import {
  assembleRoot,
  type Frontier,
  hashFromHex,
  type PerfectSubtree,
  rootPlan,
  type StoredSubtree,
  subtreeKey,
} from '@/lib/proof';

/**
 * Reads of the log's storage. LogNode holds every perfect subtree, the
 * leaves (level 0) included, so any root or proof is ONE primary-key read
 * of O(log n) rows (`WHERE (level, index) IN …`); the log's size is the
 * highest LogLeaf index plus one (an index-only read), and its frontier the
 * `rootPlan(size)` rows: nothing is kept twice, so nothing can disagree.
 */

/** A Prisma client or an interactive transaction's client. */
export type Db = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

/** Leaves in the log (committed). */
export async function logSize(prisma: Db): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<{ size: string }[]>(
    `SELECT (COALESCE(max("index"), -1) + 1)::text AS size FROM "LogLeaf"`,
  );
  return Number(rows[0]?.size ?? 0);
}

/** The stored hashes of `subtrees`, keyed `subtreeKey(level, index)`; absent rows stay absent. */
export async function fetchSubtrees(
  prisma: Db,
  subtrees: readonly PerfectSubtree[],
): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (subtrees.length === 0) return found;
  const rows = await prisma.$queryRawUnsafe<{ level: number; index: string; hash: string }[]>(
    `SELECT n.level, n."index"::text AS "index", encode(n.hash, 'hex') AS hash FROM "LogNode" n
     WHERE (n.level, n."index") IN (SELECT * FROM unnest($1::int[], $2::bigint[]))`,
    subtrees.map((s) => s.level),
    subtrees.map((s) => s.index),
  );
  for (const row of rows) {
    const hash = hashFromHex(row.hash);
    // A malformed stored hash is left out: the assembler then refuses with subtree_missing.
    if (hash) found.set(subtreeKey(row.level, Number(row.index)), hash);
  }
  return found;
}

/** The frontier of a log of `size` leaves, read from LogNode. */
export async function readFrontier(prisma: Db, size: number): Promise<Frontier> {
  const plan = rootPlan(size);
  const hashes = await fetchSubtrees(prisma, plan);
  const subtrees: StoredSubtree[] = plan.map((s) => ({
    ...s,
    // A missing row makes appendLeaves refuse (frontier_invalid) rather than build on a hole.
    hash: hashes.get(subtreeKey(s.level, s.index)) ?? new Uint8Array(0),
  }));
  return { size, subtrees };
}

/** MTH of the first `size` leaves, from storage. */
export async function storedRoot(prisma: Db, size: number): Promise<Uint8Array> {
  return assembleRoot(size, await fetchSubtrees(prisma, rootPlan(size)));
}
