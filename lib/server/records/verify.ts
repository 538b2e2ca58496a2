import 'server-only';
import { canonicalJson } from '@checkpoint/agent-hooks';
import type { PrismaClient } from '@/lib/generated/prisma/client';
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
  /** Present only when the walk disagrees with the session's stored chain head (issue 13). */
  head?: HeadMismatch;
};

/** A session's chain head (SessionChain): what ingest says it stored. */
export type ChainHead = { headHash: string; lastSequence: number; recordCount: number };

/**
 * The walk against the head: `truncated` when fewer records remain than the
 * head counts (a tail or any record deleted: the walk ends before the head
 * hash), `extra_records` when more (a row inserted beside ingest),
 * `head_mismatch` when the counts agree but the last hash or highest
 * sequence does not, `head_missing` when records exist without a head.
 */
export type HeadMismatch = {
  problem: 'truncated' | 'extra_records' | 'head_mismatch' | 'head_missing';
  expected: ChainHead | null;
  found: ChainHead;
};

export type Link = {
  sequence: number;
  record: unknown;
  chainHash: string;
  prevHash: string | null;
};

const PAGE = 5_000;

/**
 * Recomputes a session's hash chain from the stored records, in stored (id)
 * order, which is the order they were chained in (see ingest.ts), and lists
 * the sequence holes. A record edited in place, removed, or moved shows as
 * the first link that does not recompute. A session that begins after 0 has
 * a leading gap `{after: -1, before: first}`. The walk's end is compared with
 * the session's stored head (hash, highest sequence, count), so deleting the
 * tail, which leaves every remaining link intact, is caught (`head`).
 */
export async function verifySessionChain(
  hostId: string,
  sessionId: string,
): Promise<ChainVerification> {
  const prisma = await db();
  // One snapshot for the head and the walk: an ingest committing between
  // the two reads would otherwise look like a truncation or an insertion.
  return prisma.$transaction((tx) => verifyInSnapshot(tx as unknown as Tx, hostId, sessionId), {
    isolationLevel: 'RepeatableRead',
    timeout: VERIFY_TIMEOUT_MS,
    maxWait: VERIFY_TIMEOUT_MS,
  });
}

type Tx = Pick<PrismaClient, '$queryRawUnsafe'>;

const VERIFY_TIMEOUT_MS = 120_000;

async function verifyInSnapshot(
  tx: Tx,
  hostId: string,
  sessionId: string,
): Promise<ChainVerification> {
  const heads = await tx.$queryRawUnsafe<ChainHead[]>(
    `SELECT "headHash", "lastSequence", "recordCount" FROM "SessionChain"
     WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
    hostId,
    sessionId,
  );
  const walk = new ChainWalk();
  let lastId = 0n;
  for (;;) {
    const rows = await tx.$queryRawUnsafe<(Link & { id: bigint })[]>(
      `SELECT id, "sequence", "record", "chainHash", "prevHash" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure" AND id > $3
       ORDER BY id LIMIT ${PAGE}`,
      hostId,
      sessionId,
      lastId,
    );
    for (const row of rows) {
      walk.add(row);
      lastId = row.id;
    }
    if (rows.length < PAGE) break;
  }
  return walk.finish(heads[0] ?? null);
}

/**
 * The chain walk over a session's records fed in stored (id) order, so that
 * a caller reading the rows for more than the chain (audit/integrity.ts)
 * walks them in the same pass. `add` answers whether the row's link holds.
 */
export class ChainWalk {
  private prev: string | null = null;
  private checked = 0;
  private highest = -1;
  private firstBrokenSequence: number | null = null;
  private readonly sequences: number[] = [];

  add(row: Link): boolean {
    this.checked++;
    this.sequences.push(row.sequence);
    this.highest = Math.max(this.highest, row.sequence);
    const holds = linkHolds(row, this.prev);
    if (this.firstBrokenSequence === null && !holds) this.firstBrokenSequence = row.sequence;
    this.prev = row.chainHash;
    return holds;
  }

  finish(expected: ChainHead | null): ChainVerification {
    const gaps = findGaps(this.sequences);
    const found: ChainHead = {
      headHash: this.prev ?? '',
      lastSequence: this.highest,
      recordCount: this.checked,
    };
    const head = compareHead(expected, found);
    return {
      ok: this.firstBrokenSequence === null && gaps.length === 0 && head === undefined,
      checked: this.checked,
      firstBrokenSequence: this.firstBrokenSequence,
      gaps,
      ...(head ? { head } : {}),
    };
  }
}

/** Undefined when the stored head is what the walk ended at (or neither exists). */
export function compareHead(
  expected: ChainHead | null,
  found: ChainHead,
): HeadMismatch | undefined {
  if (!expected)
    return found.recordCount > 0 ? { problem: 'head_missing', expected, found } : undefined;
  if (found.recordCount < expected.recordCount) return { problem: 'truncated', expected, found };
  if (found.recordCount > expected.recordCount)
    return { problem: 'extra_records', expected, found };
  if (found.headHash !== expected.headHash || found.lastSequence !== expected.lastSequence) {
    return { problem: 'head_mismatch', expected, found };
  }
  return undefined;
}

export function linkHolds(row: Link, prev: string | null): boolean {
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
