import 'server-only';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { db } from '@/lib/server/db';
import { chainHashOf } from './chain';

export type ChainVerification = {
  /** True when every link recomputes and no sequence is missing. */
  ok: boolean;
  /** Records walked. */
  checked: number;
  /** Sequence of the first record whose link does not recompute (edited, removed or reordered). */
  firstBrokenSequence: number | null;
  /** Holes in the session's sequences: nothing stored strictly between `after` and `before`. */
  gaps: Array<{ after: number; before: number }>;
};

type Link = { sequence: number; record: unknown; chainHash: string; prevHash: string | null };

const PAGE = 5_000;

/**
 * Recomputes a session's hash chain from the stored records, in stored (id)
 * order, which is the order they were chained in (see ingest.ts), and lists
 * the sequence holes. A record edited in place, removed, or moved shows as
 * the first link that does not recompute. A session that begins after 0 has
 * a leading gap `{after: -1, before: first}`.
 */
export async function verifySessionChain(
  hostId: string,
  sessionId: string,
): Promise<ChainVerification> {
  const prisma = await db();
  let prev: string | null = null;
  let lastId = 0n;
  let checked = 0;
  let firstBrokenSequence: number | null = null;
  const sequences: number[] = [];
  for (;;) {
    const rows = await prisma.$queryRawUnsafe<(Link & { id: bigint })[]>(
      `SELECT id, "sequence", "record", "chainHash", "prevHash" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure" AND id > $3
       ORDER BY id LIMIT ${PAGE}`,
      hostId,
      sessionId,
      lastId,
    );
    for (const row of rows) {
      checked++;
      sequences.push(row.sequence);
      if (firstBrokenSequence === null && !linkHolds(row, prev)) {
        firstBrokenSequence = row.sequence;
      }
      prev = row.chainHash;
      lastId = row.id;
    }
    if (rows.length < PAGE) break;
  }
  const gaps = findGaps(sequences);
  return {
    ok: firstBrokenSequence === null && gaps.length === 0,
    checked,
    firstBrokenSequence,
    gaps,
  };
}

function linkHolds(row: Link, prev: string | null): boolean {
  if ((row.prevHash ?? null) !== prev) return false;
  let canonical: string;
  try {
    canonical = canonicalJson(row.record);
  } catch {
    return false;
  }
  return chainHashOf(prev, canonical) === row.chainHash;
}

/** Holes between the distinct stored sequences, plus one before the first if it is not 0. */
export function findGaps(sequences: number[]): Array<{ after: number; before: number }> {
  const sorted = [...new Set(sequences)].sort((a, b) => a - b);
  const gaps: Array<{ after: number; before: number }> = [];
  let expected = 0;
  let previous = -1;
  for (const s of sorted) {
    if (s > expected) gaps.push({ after: previous, before: s });
    previous = s;
    expected = s + 1;
  }
  return gaps;
}
