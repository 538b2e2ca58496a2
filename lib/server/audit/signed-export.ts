import 'server-only';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { invalidRequest } from '@/lib/server/http/api-error';
import { jwksUrl } from '@/lib/server/receipts/evidence';
import { publicJwks } from '@/lib/server/signing/jws';
import { appendAll } from '@/lib/server/transparency/append';
import { inclusionProofsBatch } from '@/lib/server/transparency/batch-proofs';
import { consistencyProof } from '@/lib/server/transparency/proofs';
import { issueTreeHead, type TreeHead } from '@/lib/server/transparency/tree-head';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportConsistency,
  type ExportHeader,
  type ExportSession,
  headerLine,
  leafLine,
} from '@/lib/verify/export-format';
import {
  type DecisionLeafSource,
  decisionLeafObject,
  leafText,
  recordLeafObject,
} from '@/lib/verify/leaf-data';
import type { AuditRow } from './rows';
import { utcTimestamp } from './where';

/**
 * The signed JSONL format's server side (lib/verify/export-format.ts;
 * docs/verifying.md): the header with a fresh signed tree head, record and
 * decision lines with their inclusion proofs, all proving against that one
 * head.
 *
 * Before the head is signed the log is brought up to date (appendAll), so a
 * normal export has no line without a proof. Rows that arrive while the
 * export runs are left out rather than exported unproven: a row is exported
 * when its leaf is under the head, or when it is still not logged although
 * it was received before the export began (the appender refused it, or it
 * never went through ingest) — that row is written without a proof, and the
 * verifier fails it. A session held completely is cut at the chain head read
 * before the append, so its records and its head agree.
 */

export type SessionKey = { hostId: string; sessionId: string };

export type SignedExportStart = {
  head: TreeHead;
  startedAt: string;
  sessions: ExportSession[];
  /** Per complete session, the id of its chain head's record (rows after it arrived during the export). */
  headIds: Map<string, string | null>;
  consistency: ExportConsistency[];
};

const sessionKey = (hostId: string, sessionId: string) => `${hostId}\u0000${sessionId}`;

type HeadRow = {
  hostId: string;
  sessionId: string;
  headHash: string;
  lastSequence: number;
  recordCount: number;
  headId: string | null;
};

export async function startSignedExport(
  prisma: PrismaClient,
  opts: { sessions: SessionKey[]; consistencyFrom?: number },
): Promise<SignedExportStart> {
  const [{ now }] = await prisma.$queryRawUnsafe<{ now: string }[]>(
    `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now`,
  );
  const sessions: ExportSession[] = [];
  const headIds = new Map<string, string | null>();
  for (const s of opts.sessions) {
    const rows = await prisma.$queryRawUnsafe<HeadRow[]>(
      `SELECT c."hostId"::text AS "hostId", c."sessionId", c."headHash", c."lastSequence", c."recordCount",
         (SELECT r.id::text FROM "InterceptionRecord" r WHERE r."hostId" = c."hostId"
            AND r."sessionId" = c."sessionId" AND r."chainHash" = c."headHash"
          ORDER BY r.id DESC LIMIT 1) AS "headId"
       FROM "SessionChain" c WHERE c."hostId" = $1::uuid AND c."sessionId" = $2`,
      s.hostId,
      s.sessionId,
    );
    const h = rows[0];
    sessions.push({
      host_id: s.hostId,
      session_id: s.sessionId,
      head: h
        ? { head_hash: h.headHash, last_sequence: h.lastSequence, record_count: h.recordCount }
        : null,
    });
    headIds.set(sessionKey(s.hostId, s.sessionId), h?.headId ?? null);
  }
  await appendAll(prisma);
  const head = await issueTreeHead(prisma);
  if (!head) throw new Error('no tree head could be issued for the export');
  const consistency: ExportConsistency[] = [];
  if (opts.consistencyFrom !== undefined) {
    const from = opts.consistencyFrom;
    if (!Number.isSafeInteger(from) || from < 1 || from > head.size) {
      throw invalidRequest(
        `consistency_from must be between 1 and the tree head's size (${head.size}); got ${from}.`,
      );
    }
    consistency.push({ ...(await consistencyProof(prisma, from, head.size)) });
  }
  return { head, startedAt: now, sessions, headIds, consistency };
}

/** Record r's leaf index (bigint, NULL when not logged): LogLeaf's (kind, "refId") index. */
const LEAF_INDEX = Prisma.raw(`(SELECT lx."index" FROM "LogLeaf" lx
  WHERE lx.kind = 'record' AND lx."refId" = r.id::text)`);

/** The SQL condition a row must meet to be in the export (see the module comment). */
export function rowBound(start: SignedExportStart, session?: SessionKey): Prisma.Sql {
  const headId = session ? start.headIds.get(sessionKey(session.hostId, session.sessionId)) : null;
  const cut = headId ? Prisma.sql`AND r.id <= ${headId}::bigint` : Prisma.empty;
  return Prisma.sql`AND CASE WHEN ${LEAF_INDEX} IS NULL
    THEN r."receivedAt" < ${utcTimestamp(new Date(start.startedAt))}
    ELSE ${LEAF_INDEX} < ${start.head.size} ${cut} END`;
}

export async function exportHeaderLine(
  start: SignedExportStart,
  kind: ExportHeader['kind'],
  scope: ExportHeader['scope'],
): Promise<string> {
  const { head } = start;
  return headerLine({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    kind,
    generated_at: start.startedAt,
    scope,
    tree_head: {
      size: head.size,
      root_hash: head.root_hash,
      timestamp: head.timestamp,
      kid: head.kid,
      jws: head.jws,
    },
    consistency: start.consistency,
    jwks_url: jwksUrl(),
    ...(kind === 'evidence' ? { jwks: (await publicJwks()) as { keys: unknown[] } } : {}),
    sessions: start.sessions,
  });
}

/** What a record line needs beside AuditRow. */
export type SignedRow = AuditRow & {
  record: unknown;
  prevHash: string | null;
  logIndex: string | null;
  ticketId: string | null;
};

/** Extra columns for SignedRow (after ROW_COLUMNS). */
export const SIGNED_ROW_COLUMNS = Prisma.sql`r.record, r."prevHash", ${LEAF_INDEX}::text AS "logIndex",
  r."ticketId"::text AS "ticketId"`;

/** The displayed columns of a row as the pages show them (the database's copies, not derived). */
function shownColumns(r: AuditRow): Record<string, unknown> {
  return {
    interception_point: r.interceptionPoint,
    mode: r.mode,
    decision: r.decision,
    reason: r.reason,
    resolved_by: r.resolvedBy,
    fold_truncated: r.foldTruncated,
    decided_by: r.decidedBy,
    host_error: r.hostError,
    host_failure: r.hostFailure,
    identity_provider: r.identityProvider,
    input_identity: r.inputIdentity,
    enforced_identity: r.enforcedIdentity,
    timestamp: r.timestamp,
  };
}

/** A chunk's record lines, with every proof from one read of the log's storage. */
export async function recordLines(
  prisma: PrismaClient,
  rows: SignedRow[],
  size: number,
): Promise<string> {
  const indexes = rows.filter((r) => r.logIndex !== null).map((r) => Number(r.logIndex));
  const proofs = await inclusionProofsBatch(prisma, indexes, size);
  let out = '';
  for (const r of rows) {
    const index = r.logIndex === null ? null : Number(r.logIndex);
    const leaf = recordLeafObject({
      hostId: r.hostId,
      sessionId: r.sessionId,
      sequence: r.sequence,
      record: r.record,
      chainHash: r.chainHash,
      prevHash: r.prevHash,
      receivedAt: r.receivedAt,
      agentId: r.agentId,
      ticketId: r.ticketId,
    });
    out += leafLine(
      {
        kind: 'record',
        id: r.id,
        host: r.hostName,
        leaf_index: index,
        proof: index === null ? null : (proofs.get(index) ?? null),
        columns: shownColumns(r),
      },
      leafText(leaf),
    );
  }
  return out;
}

type DecisionRow = DecisionLeafSource & { id: string; logIndex: string };

/**
 * Decision lines (with receipts) for the approval tickets the session's
 * exported records link to. Only logged decisions under the head: one still
 * in its receipt grace (transparency/sources.ts) is not provable yet.
 */
export async function decisionLines(
  prisma: PrismaClient,
  session: SessionKey,
  start: SignedExportStart,
): Promise<{ text: string; count: number }> {
  const rows = await prisma.$queryRawUnsafe<DecisionRow[]>(
    `SELECT d.id::text AS id, d."logIndex"::text AS "logIndex", d."ticketId"::text AS "ticketId",
       t."hostId"::text AS "hostId", d.outcome::text AS outcome, d."contextIdentity", d."decidedByKind",
       d."userId"::text AS "userId", d.note,
       to_char(d."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "decidedAt", d.verdict, d.receipt
     FROM "Decision" d JOIN "ApprovalTicket" t ON t.id = d."ticketId"
     WHERE t."hostId" = $1::uuid AND d."logIndex" < $3::bigint AND d."ticketId" IN (
       SELECT r."ticketId" FROM "InterceptionRecord" r
       WHERE r."hostId" = $1::uuid AND r."sessionId" = $2 AND r."ticketId" IS NOT NULL)
     ORDER BY d."logIndex"`,
    session.hostId,
    session.sessionId,
    start.head.size,
  );
  const proofs = await inclusionProofsBatch(
    prisma,
    rows.map((d) => Number(d.logIndex)),
    start.head.size,
  );
  let text = '';
  for (const d of rows) {
    const index = Number(d.logIndex);
    text += leafLine(
      {
        kind: 'decision',
        id: d.id,
        leaf_index: index,
        proof: proofs.get(index) ?? null,
        receipt: d.receipt,
      },
      leafText(decisionLeafObject(d)),
    );
  }
  return { text, count: rows.length };
}
