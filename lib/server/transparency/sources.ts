import 'server-only';
import type { DecisionLeafSource, RecordLeafSource } from './leaf-data';
import type { Db } from './store';

/**
 * The rows the log hashes, read as leaf-data.ts needs them. Times and ids
 * come back as text (as the audit pages read them, audit/rows.ts), so no
 * driver conversion (time zones, bigint) can change a hashed byte.
 */

export type RecordRow = RecordLeafSource & { id: string; logIndex: string | null };
export type DecisionRow = DecisionLeafSource & { id: string; logIndex: string | null };

/**
 * A decision made without a receipt yet (receipts are issued with the
 * decision, or on first read for older ones) waits this long before it is
 * logged without one, so a receipt issued just after is still bound.
 */
export const DECISION_RECEIPT_GRACE_S = 30;

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The leaf that logs record `r` (text, null when none): LogLeaf's unique
 * (kind, "refId") index is the only mapping from a record to its leaf (the
 * record row carries none, so the appender never updates it).
 */
export const RECORD_LEAF_INDEX = `(SELECT lx."index"::text FROM "LogLeaf" lx
  WHERE lx.kind = 'record' AND lx."refId" = r.id::text)`;

export const RECORD_SELECT = `r.id::text AS id, ${RECORD_LEAF_INDEX} AS "logIndex",
  r."hostId"::text AS "hostId", r."sessionId", r.sequence, r.record,
  r."chainHash", r."prevHash", to_char(r."receivedAt", ${ISO}) AS "receivedAt",
  r."agentId", r."ticketId"::text AS "ticketId"`;

export const DECISION_SELECT = `d.id::text AS id, d."logIndex"::text AS "logIndex",
  d."ticketId"::text AS "ticketId", t."hostId"::text AS "hostId", d.outcome::text AS outcome,
  d."contextIdentity", d."decidedByKind", d."userId"::text AS "userId", d.note,
  to_char(d."createdAt", ${ISO}) AS "decidedAt", d.verdict, d.receipt`;

export async function recordById(prisma: Db, id: string): Promise<RecordRow | null> {
  const rows = await prisma.$queryRawUnsafe<RecordRow[]>(
    `SELECT ${RECORD_SELECT} FROM "InterceptionRecord" r WHERE r.id = $1::bigint`,
    id,
  );
  return rows[0] ?? null;
}

export async function decisionById(prisma: Db, id: string): Promise<DecisionRow | null> {
  const rows = await prisma.$queryRawUnsafe<DecisionRow[]>(
    `SELECT ${DECISION_SELECT} FROM "Decision" d JOIN "ApprovalTicket" t ON t.id = d."ticketId"
     WHERE d.id = $1::uuid`,
    id,
  );
  return rows[0] ?? null;
}
