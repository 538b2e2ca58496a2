import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import {
  assembleInclusion,
  InclusionBatchVerifier,
  inclusionPlan,
  type PerfectSubtree,
  subtreeKey,
} from '@/lib/proof';
import { db } from '@/lib/server/db';
import {
  type ChainHead,
  type ChainVerification,
  compareHead,
  linkHolds,
} from '@/lib/server/records/verify';
import { fetchSubtrees } from '@/lib/server/transparency/store';
import {
  latestLogVerification,
  type StoredVerification,
} from '@/lib/server/transparency/verify-run';
import { finding, type IntegrityFinding, isFailure } from '@/lib/verify/findings';
import { type CheckedHead, checkTreeHead, headCovering, type TreeHeadInfo } from './integrity-head';
import {
  hasRefusalTable,
  type IntegrityRow,
  integrityRowsSql,
  judgeRow,
  leavesOf,
  nameOf,
  type RowVerdict,
} from './integrity-rows';
import { readStructure, type SessionStructure } from './integrity-structure';

export { checkRecordIntegrity, type RecordIntegrity } from './integrity-record';
export type { TreeHeadInfo } from './integrity-head';

/**
 * A session verified against the transparency log (issue 13 item 4) at a
 * cost proportional to what the timeline shows (issue 16 item 3):
 * - the rows of the page (`after`, `limit`, in sequence order, as the
 *   timeline pages them) in full: each against its leaf and copied
 *   columns, its chain link recomputed from its content, and its leaf's
 *   inclusion proof against the newest signed tree head (itself verified);
 * - the whole session's structure, cheaply (integrity-structure.ts): no
 *   sequence holes, every stored link pointing at the row stored before
 *   it, the end agreeing with the stored chain head. Rows on other pages
 *   that this pass flags are leaf-checked too and named;
 * - the newest background verifier run (the whole log, re-hashed), with
 *   its failures that concern this session.
 * Every problem is an IntegrityFinding naming the record (id, sequence).
 */
export type SessionIntegrity = {
  /** Nothing this check looked at failed (the background run is reported apart, in `verifier`). */
  ok: boolean;
  /** The verified head the page's records were proved against; null when none verifies. */
  treeHead: TreeHeadInfo | null;
  /** Records checked in full (the page's). */
  checkedRecords: number;
  findings: IntegrityFinding[];
  /** Findings beyond MAX_FINDINGS, counted but not listed. */
  omittedFindings: number;
  /** The session-wide chain result: structure for every row, content for the page's. */
  chain: ChainVerification;
  scope: IntegrityScope;
  /** The newest background verifier run, or null before the first. */
  verifier: VerifierNote | null;
};

/** Which records were checked in full, and which only structurally. */
export type IntegrityScope = {
  /** Rows in the session. */
  sessionRecords: number;
  /** 1-based positions (in sequence order) of the page's first and last rows; 0 when empty. */
  firstPosition: number;
  lastPosition: number;
  /** Sequences of the page's first and last rows. */
  firstSequence: number | null;
  lastSequence: number | null;
  /** Every row of the session is on this page (so every row was checked in full). */
  complete: boolean;
};

/** The newest background verifier run (LogVerification), as the session page shows it. */
export type VerifierNote = {
  ok: boolean;
  finishedAt: string;
  size: number;
  checkedLeaves: number;
  failureCount: number;
  /** Its stored failures naming this session (the run stores its first 100 findings). */
  sessionFailures: IntegrityFinding[];
};

export const SESSION_PAGE_SIZE = 500;
/** Off-page anomalies leaf-checked and listed; a session past this is flagged in bulk anyway. */
const MAX_ANOMALIES = 500;
const MAX_FINDINGS = 500;
const TIMEOUT_MS = 120_000;

type Tx = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

export async function checkSessionIntegrity(
  hostId: string,
  sessionId: string,
  page: { after?: number; limit?: number } = {},
): Promise<SessionIntegrity> {
  const after = Math.trunc(page.after ?? -1);
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? SESSION_PAGE_SIZE), 1), 10_000);
  const prisma = await db();
  const newest = await prisma.$queryRawUnsafe<{ max: string | null }[]>(
    `SELECT max(l."index")::text AS max FROM (
       SELECT id FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure" AND sequence > $3
       ORDER BY sequence LIMIT $4) p
     JOIN "LogLeaf" l ON l.kind = 'record' AND l."refId" = p.id::text`,
    hostId,
    sessionId,
    after,
    limit,
  );
  const needIndex = newest[0]?.max == null ? null : Number(newest[0].max);
  const [head, run] = await Promise.all([
    headCovering(prisma, needIndex).then((h) => checkTreeHead(prisma, h)),
    latestLogVerification(prisma).catch(() => null),
  ]);
  // One snapshot for the chain head, the structure and the rows: an ingest
  // committing between two reads would otherwise look like a truncation.
  const result = await prisma.$transaction(
    (tx) => checkInSnapshot(tx as unknown as Tx, hostId, sessionId, head, { after, limit }),
    { isolationLevel: 'RepeatableRead', timeout: TIMEOUT_MS, maxWait: TIMEOUT_MS },
  );
  return { ...result, verifier: run ? verifierNote(run, hostId, sessionId) : null };
}

function verifierNote(run: StoredVerification, hostId: string, sessionId: string): VerifierNote {
  return {
    ok: run.ok,
    finishedAt: run.finishedAt.toISOString(),
    size: run.size,
    checkedLeaves: run.checkedLeaves,
    failureCount: run.failureCount,
    sessionFailures: run.findings.filter(
      (f) => isFailure(f) && f.hostId === hostId && f.sessionId === sessionId,
    ),
  };
}

class Findings {
  readonly list: Array<{ order: bigint; f: IntegrityFinding }> = [];
  omitted = 0;
  failed = false;
  add(f: IntegrityFinding, order = BIG) {
    if (isFailure(f)) this.failed = true;
    if (this.list.length < MAX_FINDINGS) this.list.push({ order, f });
    else this.omitted++;
  }
  /** Record findings in stored (id) order, then the session-wide ones in the order found. */
  sorted(): IntegrityFinding[] {
    return this.list
      .map((e, i) => ({ ...e, i }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : a.i - b.i))
      .map((e) => e.f);
  }
}
const BIG = 2n ** 63n;

type Judged = { row: IntegrityRow; verdict: RowVerdict; failed: boolean };

async function checkInSnapshot(
  tx: Tx,
  hostId: string,
  sessionId: string,
  head: CheckedHead,
  page: { after: number; limit: number },
): Promise<Omit<SessionIntegrity, 'verifier'>> {
  const findings = new Findings();
  if (head.valid === false) findings.add(head.finding);
  const [heads, refusals] = await Promise.all([
    tx.$queryRawUnsafe<ChainHead[]>(
      `SELECT "headHash", "lastSequence", "recordCount" FROM "SessionChain"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2`,
      hostId,
      sessionId,
    ),
    hasRefusalTable(tx),
  ]);
  const pageRows = await tx.$queryRawUnsafe<IntegrityRow[]>(
    integrityRowsSql(
      `r."hostId" = $1::uuid AND r."sessionId" = $2 AND NOT r."hostFailure" AND r.sequence > $3`,
      refusals,
      `ORDER BY r.sequence, r.id LIMIT ${page.limit}`,
    ),
    hostId,
    sessionId,
    page.after,
  );
  const first = pageRows[0];
  const lastOfPage = pageRows.at(-1);
  // The window sorts of a large session fit in memory instead of spilling to disk.
  await tx.$executeRawUnsafe(`SET LOCAL work_mem = '64MB'`);
  const structure = await readStructure(tx, hostId, sessionId, {
    after: page.after,
    pageFrom: first?.sequence ?? 0,
    pageTo: lastOfPage?.sequence ?? -1,
    cap: MAX_ANOMALIES,
  });
  const onPage = new Set(pageRows.map((r) => r.id));
  const breakOf = new Map(structure.breaks.map((b) => [b.id, b]));

  // Rows of other pages that the structure flags, and the rows before them:
  // leaf-checked, so each is named for what it is (altered, forged, moved).
  const elsewhere = new Set<string>();
  for (const b of structure.breaks) {
    if (!onPage.has(b.id)) elsewhere.add(b.id);
    if (b.prevId !== null && !onPage.has(b.prevId)) elsewhere.add(b.prevId);
  }
  const otherRows =
    elsewhere.size === 0
      ? []
      : await tx.$queryRawUnsafe<IntegrityRow[]>(
          integrityRowsSql(`r.id = ANY($1::bigint[])`, refusals),
          [...elsewhere],
        );
  const judged = new Map<string, Judged>();
  const read = [...pageRows, ...otherRows];
  const leaves = leavesOf(read);
  for (const row of read) {
    const verdict = judgeRow(row, leaves);
    judged.set(row.id, {
      row,
      verdict,
      failed: verdict.kind === 'finding' && isFailure(verdict.finding),
    });
  }

  // The page, in stored (id) order: leaf, then its link recomputed from its content.
  const byId = [...pageRows].sort((a, b) => compareIds(a.id, b.id));
  const logged: Logged[] = [];
  let firstBroken: { id: bigint; sequence: number } | null = null;
  const broke = (id: string, sequence: number) => {
    const key = BigInt(id);
    if (!firstBroken || key < firstBroken.id) firstBroken = { id: key, sequence };
  };
  let previous: IntegrityRow | null = null;
  for (const row of byId) {
    const b = breakOf.get(row.id);
    const contentHolds = linkHolds(row, row.prevHash ?? null);
    const holds = b === undefined && contentHolds;
    if (!holds) broke(row.id, row.sequence);
    // The row stored just before it: from the structure when the link is
    // broken (it may be on another page), else the previous page row.
    const prevId = b ? b.prevId : (previous?.id ?? null);
    const prevSequence = b ? b.prevSequence : (previous?.sequence ?? null);
    checkRow(row, judged, { holds, prevId, prevSequence }, head, findings, logged);
    previous = row;
  }
  if (head.valid) await proveIncluded(tx, head, logged, findings);

  // Broken links on other pages.
  for (const b of structure.breaks) {
    if (onPage.has(b.id)) continue;
    broke(b.id, b.sequence);
    const self = judged.get(b.id);
    if (self?.verdict.kind === 'finding') {
      findings.add(self.verdict.finding, BigInt(b.id));
      continue;
    }
    const holeBefore = b.sequence > (b.prevSequence ?? -1) + 1;
    const prevFailed = b.prevId !== null && judged.get(b.prevId)?.failed === true;
    if (holeBefore || prevFailed) continue;
    const name = nameOf({ id: b.id, sequence: b.sequence, sessionId });
    findings.add(
      finding(
        'out_of_order',
        'record',
        `${name} is out of order: its stored link does not point at ${
          b.prevId === null
            ? 'the start of the session'
            : `record ${b.prevId} (sequence ${b.prevSequence}), stored just before it`
        }, though its own leaf holds.`,
        {
          recordId: b.id,
          hostId,
          sessionId,
          sequence: b.sequence,
          leafIndex: self?.verdict.kind === 'logged' ? self.verdict.index : null,
        },
      ),
      BigInt(b.id),
    );
  }
  for (let i = structure.breaks.length; i < structure.breakCount; i++) findings.omitted++;

  const chain = chainVerification(structure, heads[0] ?? null, firstBroken);
  reportGaps(sessionId, structure, findings, { hostId, sessionId });
  reportHead(sessionId, chain, structure.lastRow, findings, { hostId, sessionId });
  const firstPosition = pageRows.length === 0 ? 0 : structure.before + 1;
  return {
    ok: !findings.failed,
    treeHead: head.valid ? head.info : null,
    checkedRecords: pageRows.length,
    findings: findings.sorted(),
    omittedFindings: findings.omitted,
    chain,
    scope: {
      sessionRecords: structure.count,
      firstPosition,
      lastPosition: pageRows.length === 0 ? 0 : structure.before + pageRows.length,
      firstSequence: first?.sequence ?? null,
      lastSequence: lastOfPage?.sequence ?? null,
      complete: pageRows.length === structure.count,
    },
  };
}

function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The chain result in the shape the chain walk gave it (records/verify.ts). */
function chainVerification(
  s: SessionStructure,
  expected: ChainHead | null,
  firstBroken: { id: bigint; sequence: number } | null,
): ChainVerification {
  const found: ChainHead = {
    headHash: s.headHash,
    lastSequence: s.lastSequence,
    recordCount: s.count,
  };
  const head = compareHead(expected, found);
  const gaps = s.gaps.map((g) => ({ after: g.after, before: g.before }));
  return {
    ok: firstBroken === null && s.gapCount === 0 && head === undefined,
    checked: s.count,
    firstBrokenSequence: firstBroken?.sequence ?? null,
    gaps,
    ...(head ? { head } : {}),
  };
}

type Logged = { row: IntegrityRow; index: number; leafHash: Uint8Array };

/** One page row: its leaf, then its place in the chain. */
function checkRow(
  row: IntegrityRow,
  judged: Map<string, Judged>,
  link: { holds: boolean; prevId: string | null; prevSequence: number | null },
  head: CheckedHead,
  findings: Findings,
  logged: Logged[],
): void {
  const order = BigInt(row.id);
  const verdict = (judged.get(row.id) as Judged).verdict;
  if (verdict.kind === 'finding') {
    findings.add(verdict.finding, order);
    return;
  }
  const at = {
    recordId: row.id,
    hostId: row.hostId,
    sessionId: row.sessionId,
    sequence: row.sequence,
    leafIndex: verdict.index,
  };
  // Its own leaf holds, so a broken link means the rows were moved; a hole
  // just before it (records deleted) or a failed row before it already
  // explains a broken link.
  const holeBefore = row.sequence > (link.prevSequence ?? -1) + 1;
  const previousFailed = link.prevId !== null && judged.get(link.prevId)?.failed === true;
  if (!link.holds && !holeBefore && !previousFailed) {
    findings.add(
      finding(
        'out_of_order',
        'record',
        `${nameOf(row)} is out of order: its link to the record chained before it does not recompute, though its own leaf holds.`,
        at,
      ),
      order,
    );
    return;
  }
  if (head.valid && verdict.index >= head.head.size) {
    findings.add(
      finding(
        'not_logged',
        'record',
        `${nameOf(row)} is in the log at leaf ${verdict.index}, after signed tree head #${head.head.size}.`,
        at,
      ),
      order,
    );
    return;
  }
  logged.push({ row, index: verdict.index, leafHash: verdict.leafHash });
}

/**
 * The inclusion proofs of a page of rows against the head: every subtree
 * they need in one read, checked with one batch verifier per page (shared
 * upper nodes are hashed once; memory stays bounded by the page).
 */
async function proveIncluded(
  tx: Tx,
  head: Extract<CheckedHead, { valid: true }>,
  logged: Logged[],
  findings: Findings,
): Promise<void> {
  if (logged.length === 0) return;
  const size = head.head.size;
  const needed = new Map<string, PerfectSubtree>();
  for (const { index } of logged) {
    for (const s of inclusionPlan(index, size).subtrees)
      needed.set(subtreeKey(s.level, s.index), s);
  }
  const hashes = await fetchSubtrees(tx, [...needed.values()]);
  const verifier = new InclusionBatchVerifier(size, head.root);
  for (const { row, index, leafHash } of logged) {
    let ok = false;
    try {
      ok = verifier.verify(leafHash, index, assembleInclusion(index, size, hashes));
    } catch {
      ok = false; // a subtree missing from storage: no proof can be built
    }
    if (!ok) {
      findings.add(
        finding(
          'proof_failed',
          'record',
          `The inclusion proof of ${nameOf(row).replace(/^Record/, 'record')} (leaf ${index}) does not lead to the root of signed tree head #${size}.`,
          {
            recordId: row.id,
            hostId: row.hostId,
            sessionId: row.sessionId,
            sequence: row.sequence,
            leafIndex: index,
          },
        ),
        BigInt(row.id),
      );
    }
  }
}

const range = (from: number, to: number) =>
  from === to ? `Sequence ${from}` : `Sequences ${from}–${to}`;

/** Holes in the sequences, each naming the records either side (from the structure pass). */
function reportGaps(
  sessionId: string,
  s: SessionStructure,
  findings: Findings,
  at: { hostId: string; sessionId: string },
): void {
  for (const gap of s.gaps) {
    const between = [
      gap.afterId ? `after record ${gap.afterId} (sequence ${gap.after})` : null,
      `before record ${gap.beforeId} (sequence ${gap.before})`,
    ]
      .filter(Boolean)
      .join(' and ');
    findings.add(
      finding(
        'missing',
        'record',
        `${range(gap.after + 1, gap.before - 1)} of session ${sessionId} ${gap.before - gap.after > 2 ? 'are' : 'is'} missing, ${between}.`,
        { ...at, sequence: gap.after + 1 },
      ),
    );
  }
  for (let i = s.gaps.length; i < s.gapCount; i++) findings.omitted++;
}

/** The walk's end against the session's stored chain head. */
function reportHead(
  sessionId: string,
  chain: ChainVerification,
  last: { id: string; sequence: number } | null,
  findings: Findings,
  at: { hostId: string; sessionId: string },
): void {
  const head = chain.head;
  if (!head) return;
  const { expected, found } = head;
  const lastText = last ? `record ${last.id} (sequence ${last.sequence})` : 'no record';
  if (head.problem === 'head_missing' || !expected) {
    findings.add(
      finding(
        'missing',
        'session',
        `Session ${sessionId} has ${found.recordCount} records but no chain head to check them against.`,
        at,
      ),
    );
    return;
  }
  const says = `its chain head says ${expected.recordCount} records up to sequence ${expected.lastSequence}`;
  if (head.problem === 'truncated') {
    const cut = expected.lastSequence > found.lastSequence;
    // A hole in the middle is already named by the gap findings.
    if (!cut && chain.gaps.length > 0) return;
    findings.add(
      finding(
        'truncated',
        'session',
        `Session ${sessionId} is truncated: it ends at ${lastText} but ${says}${
          cut
            ? `; ${range(found.lastSequence + 1, expected.lastSequence).toLowerCase()} ${expected.lastSequence > found.lastSequence + 1 ? 'are' : 'is'} missing`
            : ''
        }.`,
        { ...at, recordId: last?.id ?? null, sequence: cut ? found.lastSequence + 1 : null },
      ),
    );
    return;
  }
  findings.add(
    finding(
      head.problem === 'extra_records' ? 'forged' : 'altered',
      'session',
      head.problem === 'extra_records'
        ? `Session ${sessionId} has ${found.recordCount} records but ${says}: records were stored outside ingest.`
        : `Session ${sessionId} ends at ${lastText} in hash ${found.headHash.slice(0, 12)}…, but ${says} ending in ${expected.headHash.slice(0, 12)}….`,
      { ...at, recordId: last?.id ?? null },
    ),
  );
}
