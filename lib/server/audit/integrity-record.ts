import 'server-only';
import { hashFromHex, toHex, verifyInclusion } from '@/lib/proof';
import { db } from '@/lib/server/db';
import { linkHolds } from '@/lib/server/records/verify';
import { inclusionProof } from '@/lib/server/transparency/proofs';
import { finding, type IntegrityFinding, isFailure } from '@/lib/verify/findings';
import { checkTreeHead, headCovering, type TreeHeadInfo } from './integrity-head';
import {
  hasRefusalTable,
  type IntegrityRow,
  integrityRowsSql,
  judgeRow,
  nameOf,
} from './integrity-rows';

/**
 * One record verified as its page shows it (issue 13 item 4): its row
 * against its leaf, the leaf's inclusion proof against the newest signed
 * tree head (verified), and its link to the record chained before it.
 */
export type RecordIntegrity = {
  ok: boolean;
  /** False when no record has this id (nothing else is then filled in). */
  found: boolean;
  leafIndex: number | null;
  /** The verified head the proof leads to; null when none verifies or the record is not proved. */
  treeHead: TreeHeadInfo | null;
  /** The inclusion proof that verified (hex, leaf side first); null when none did. */
  proof: { leafHash: string; path: string[] } | null;
  findings: IntegrityFinding[];
};

const NONE: RecordIntegrity = {
  ok: false,
  found: false,
  leafIndex: null,
  treeHead: null,
  proof: null,
  findings: [],
};

export async function checkRecordIntegrity(recordId: string): Promise<RecordIntegrity> {
  if (!/^\d{1,18}$/.test(recordId)) return NONE;
  const prisma = await db();
  const refusals = await hasRefusalTable(prisma);
  const [row] = await prisma.$queryRawUnsafe<IntegrityRow[]>(
    integrityRowsSql('r.id = $1::bigint', refusals),
    recordId,
  );
  if (!row) return NONE;
  const findings: IntegrityFinding[] = [];
  const verdict = judgeRow(row);
  const leafIndex = row.logIndex === null ? null : Number(row.logIndex);
  if (verdict.kind === 'finding') findings.push(verdict.finding);
  if (!row.hostFailure) findings.push(...(await linkFindings(row)));
  const head = await checkTreeHead(
    prisma,
    await headCovering(prisma, verdict.kind === 'logged' ? verdict.index : null),
  );
  if (head.valid === false) findings.push(head.finding);
  let proof: RecordIntegrity['proof'] = null;
  if (verdict.kind === 'logged' && head.valid) {
    const at = {
      recordId: row.id,
      hostId: row.hostId,
      sessionId: row.sessionId,
      sequence: row.sequence,
      leafIndex: verdict.index,
    };
    if (verdict.index >= head.head.size) {
      findings.push(
        finding(
          'not_logged',
          'record',
          `${nameOf(row)} is in the log at leaf ${verdict.index}, after signed tree head #${head.head.size}.`,
          at,
        ),
      );
    } else {
      const answer = await inclusionProof(prisma, verdict.index, head.head.size).catch(() => null);
      const path = answer?.proof.map((h) => hashFromHex(h)) ?? [null];
      const ok =
        answer !== null &&
        path.every((h) => h !== null) &&
        verifyInclusion(
          verdict.leafHash,
          verdict.index,
          head.head.size,
          path as Uint8Array[],
          head.root,
        );
      if (ok && answer) proof = { leafHash: toHex(verdict.leafHash), path: answer.proof };
      else
        findings.push(
          finding(
            'proof_failed',
            'record',
            `The inclusion proof of ${nameOf(row).replace(/^Record/, 'record')} (leaf ${verdict.index}) does not lead to the root of signed tree head #${head.head.size}.`,
            at,
          ),
        );
    }
  }
  return {
    ok: !findings.some(isFailure),
    found: true,
    leafIndex,
    treeHead: head.valid ? head.info : null,
    proof,
    findings,
  };
}

/**
 * The record's link to the one chained before it in its session: a broken
 * link with sequences missing in between is a deletion (missing); otherwise
 * the record was moved (out_of_order), unless its own leaf already failed.
 */
async function linkFindings(row: IntegrityRow): Promise<IntegrityFinding[]> {
  const prisma = await db();
  const [prev] = await prisma.$queryRawUnsafe<
    { id: string; sequence: number; chainHash: string }[]
  >(
    `SELECT id::text AS id, sequence, "chainHash" FROM "InterceptionRecord"
     WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure" AND id < $3::bigint
     ORDER BY id DESC LIMIT 1`,
    row.hostId,
    row.sessionId,
    row.id,
  );
  if (linkHolds(row, prev?.chainHash ?? null)) return [];
  const at = {
    recordId: row.id,
    hostId: row.hostId,
    sessionId: row.sessionId,
    sequence: row.sequence,
  };
  const expectedBefore = prev ? prev.sequence + 1 : 0;
  if (row.sequence > expectedBefore) {
    const from = expectedBefore;
    const to = row.sequence - 1;
    return [
      finding(
        'missing',
        'record',
        `${from === to ? `Sequence ${from} is` : `Sequences ${from}–${to} are`} missing before ${nameOf(row).replace(/^Record/, 'record')}.`,
        { ...at, sequence: from },
      ),
    ];
  }
  if (judgeRow(row).kind === 'finding') return [];
  return [
    finding(
      'out_of_order',
      'record',
      `${nameOf(row)} is out of order: its link to the record chained before it does not recompute, though its own leaf holds.`,
      at,
    ),
  ];
}
