import 'server-only';
import { watermarkSeal, watermarkVerifies } from '@/lib/server/records/seal';
import {
  DECISION_RECEIPT_GRACE_S,
  DECISION_SELECT,
  type DecisionRow,
  RECORD_SELECT,
  type RecordRow,
} from './sources';
import type { Db } from './store';

/**
 * What the appender reads: the rows not logged yet (minus those it refused,
 * LogRefusal), with what its guard (append-guard.ts) checks them against,
 * and where it writes a refusal.
 */

/** An unlogged record with the columns the guard checks beyond its leaf data. */
export type PendingRecord = RecordRow & {
  contentHash: string;
  hostFailure: boolean;
  /** The ingest seal (records/seal.ts); null on rows older than seals, or not written by ingest. */
  seal: string | null;
  /** The inserting transaction: rows of one ingest batch share it (until logged). */
  xmin: string;
};

export type PendingDecision = DecisionRow & {
  ticketStatus: string;
  /** ApprovalTicket.decidedAt, ISO text (decisions set it to their own createdAt). */
  ticketDecidedAt: string | null;
  deciderAuth: string | null;
};

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * What the appender first reads of each record not in the log and not
 * refused: enough to append a v2-sealed row (records/seal.ts) without
 * reading its record, and to order it among decisions. Lowest id first,
 * locked until the appending transaction ends. Id order is each session's
 * chain order (ingest inserts a batch in chain order under the session's
 * chain lock), so a record's predecessor is logged already or earlier in
 * this list. Only ids above `lowId` are searched (record-cursor.ts); the
 * anti-joins on LogLeaf's (kind, "refId") index and LogRefusal's primary
 * key skip the rows logged or refused already.
 */
export type PendingHead = {
  id: string;
  leafHash: string | null;
  seal: string | null;
  receivedAt: string;
};

export function pendingRecordHeads(tx: Db, lowId: bigint, limit: number): Promise<PendingHead[]> {
  return tx.$queryRawUnsafe<PendingHead[]>(
    `SELECT r.id::text AS id, r."leafHash", r.seal, to_char(r."receivedAt", ${ISO}) AS "receivedAt"
     FROM "InterceptionRecord" r
     WHERE r.id > $1::bigint
       AND NOT EXISTS (SELECT 1 FROM "LogLeaf" l WHERE l.kind = 'record' AND l."refId" = r.id::text)
       AND NOT EXISTS (SELECT 1 FROM "LogRefusal" f WHERE f.kind = 'record' AND f."refId" = r.id::text)
     ORDER BY r.id LIMIT ${Math.trunc(limit)}
     FOR UPDATE OF r`,
    lowId.toString(),
  );
}

/** The full rows of pending records `ids` (read by pendingRecordHeads, so locked already), id order. */
export function pendingRecordsById(tx: Db, ids: string[]): Promise<PendingRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tx.$queryRawUnsafe<PendingRecord[]>(
    `SELECT ${RECORD_SELECT}, r."contentHash", r."hostFailure", r.seal, r.xmin::text AS xmin
     FROM "InterceptionRecord" r
     WHERE r.id = ANY($1::bigint[])
     ORDER BY r.id`,
    ids,
  );
}

/** The oldest decisions not logged nor refused (past the receipt grace unless they have one), locked. */
export function unloggedDecisions(tx: Db, limit: number): Promise<PendingDecision[]> {
  return tx.$queryRawUnsafe<PendingDecision[]>(
    `SELECT ${DECISION_SELECT}, t.status::text AS "ticketStatus",
       to_char(t."decidedAt", ${ISO}) AS "ticketDecidedAt", d."deciderAuth"
     FROM "Decision" d JOIN "ApprovalTicket" t ON t.id = d."ticketId"
     WHERE d."logIndex" IS NULL
       AND (d.receipt IS NOT NULL OR d."createdAt" < now() - interval '${DECISION_RECEIPT_GRACE_S} seconds')
       AND NOT EXISTS (SELECT 1 FROM "LogRefusal" f WHERE f.kind = 'decision' AND f."refId" = d.id::text)
     ORDER BY d."createdAt", d.id LIMIT ${Math.trunc(limit)}
     FOR UPDATE OF d`,
  );
}

/** A session's chain as the guard needs it, read in one statement (one snapshot). */
export type SessionContext = {
  hostId: string;
  sessionId: string;
  /** SessionChain.headHash ('' for a chain with no record yet), null without a chain row. */
  headHash: string | null;
  /** The session's logged record with the highest id, if any. */
  logged: { id: string; chainHash: string } | null;
  /** Every record of the session above `logged` (logged or not, refused included), id order. */
  after: { id: string; chainHash: string; prevHash: string | null }[];
};

/**
 * The chain context of `sessions`: head, last logged record, and every
 * record after it. Reading a session's records is a scan of that session
 * (the (host, session, sequence) index), once per batch that touches it.
 */
export async function sessionContexts(
  tx: Db,
  sessions: { hostId: string; sessionId: string }[],
): Promise<Map<string, SessionContext>> {
  const out = new Map<string, SessionContext>();
  if (sessions.length === 0) return out;
  const rows = await tx.$queryRawUnsafe<SessionContext[]>(
    `WITH s AS (SELECT * FROM unnest($1::uuid[], $2::text[]) AS s(h, sid)),
     l AS (
       SELECT s.h, s.sid, lp.id, lp."chainHash" FROM s
       LEFT JOIN LATERAL (
         SELECT p.id, p."chainHash" FROM "InterceptionRecord" p
         WHERE p."hostId" = s.h AND p."sessionId" = s.sid AND p."dedupeKey" = ''
           AND EXISTS (SELECT 1 FROM "LogLeaf" pl WHERE pl.kind = 'record' AND pl."refId" = p.id::text)
         ORDER BY p.id DESC LIMIT 1) lp ON true)
     SELECT l.h::text AS "hostId", l.sid AS "sessionId",
       (SELECT c."headHash" FROM "SessionChain" c WHERE c."hostId" = l.h AND c."sessionId" = l.sid) AS "headHash",
       CASE WHEN l.id IS NULL THEN NULL
            ELSE json_build_object('id', l.id::text, 'chainHash', l."chainHash") END AS logged,
       COALESCE((
         SELECT json_agg(json_build_object('id', a.id::text, 'chainHash', a."chainHash", 'prevHash', a."prevHash")
                ORDER BY a.id)
         FROM "InterceptionRecord" a
         WHERE a."hostId" = l.h AND a."sessionId" = l.sid AND a."dedupeKey" = ''
           AND a.id > COALESCE(l.id, -1)), '[]'::json) AS after
     FROM l`,
    sessions.map((s) => s.hostId),
    sessions.map((s) => s.sessionId),
  );
  for (const row of rows) out.set(sessionKey(row.hostId, row.sessionId), row);
  return out;
}

export function sessionKey(hostId: string, sessionId: string): string {
  return `${hostId}\u0000${sessionId}`;
}

/**
 * The time window genuine records fall in: not after the database clock
 * now, and not before the received time of the most recently logged record
 * minus `toleranceMs` (null when no record is logged).
 */
export async function receivedWindow(
  tx: Db,
  toleranceMs: number,
): Promise<{ now: string; earliest: string | null }> {
  const rows = await tx.$queryRawUnsafe<{ now: string; earliest: string | null }[]>(
    `SELECT to_char(clock_timestamp()::timestamp(3), ${ISO}) AS now,
       (SELECT to_char(r."receivedAt" - make_interval(secs => $1::double precision / 1000), ${ISO})
        FROM "LogLeaf" l JOIN "InterceptionRecord" r ON r.id = l."refId"::bigint
        WHERE l.kind = 'record' ORDER BY l."index" DESC LIMIT 1) AS earliest`,
    toleranceMs,
  );
  return rows[0] ?? { now: new Date().toISOString(), earliest: null };
}

/**
 * The highest record id that may be logged without a seal, or null when
 * none may. Rows stored before seals existed have none; the migration
 * recorded the highest id then (RecordSealWatermark), and the appender
 * seals that row on first use, so a database shell cannot raise it later.
 * Pre-seal rows are taken only until a record above the watermark is
 * logged: every genuine pre-seal row comes first in the id-ordered backlog,
 * so an unsealed row after that is one inserted into a gap. `problem` says
 * why no row may go unsealed when the watermark looks tampered with.
 *
 * Trust on first use: a watermark raised before the appender first sealed
 * it is believed. A watermark whose seal was removed is believed again only
 * while the newest logged record carries no seal (no sealed record has been
 * logged since seals exist) — docs/transparency.md says what that leaves.
 */
export async function preSealBound(
  tx: Db,
): Promise<{ max: bigint | null; problem: string | null }> {
  const rows = await tx.$queryRawUnsafe<
    {
      maxId: string | null;
      seal: string | null;
      lastId: string | null;
      lastSealed: boolean | null;
    }[]
  >(
    `SELECT w."maxId"::text AS "maxId", w.seal, last.id::text AS "lastId", last.sealed AS "lastSealed"
     FROM (SELECT 1) one
     LEFT JOIN "RecordSealWatermark" w ON w.id = 1
     LEFT JOIN LATERAL (
       SELECT r.id, r.seal IS NOT NULL AS sealed
       FROM "LogLeaf" l JOIN "InterceptionRecord" r ON r.id = l."refId"::bigint
       WHERE l.kind = 'record' ORDER BY l."index" DESC LIMIT 1) last ON true`,
  );
  const w = rows[0];
  if (!w || w.maxId === null) return { max: null, problem: null };
  if (w.seal === null) {
    if (w.lastSealed) {
      return {
        max: null,
        problem: 'the pre-seal watermark lost its seal after sealed records were logged',
      };
    }
    await tx.$executeRawUnsafe(
      `UPDATE "RecordSealWatermark" SET seal = $1 WHERE id = 1 AND seal IS NULL`,
      watermarkSeal(w.maxId),
    );
  } else if (!watermarkVerifies(w.maxId, w.seal)) {
    return { max: null, problem: 'the pre-seal watermark does not carry its seal (altered)' };
  }
  const max = BigInt(w.maxId);
  if (w.lastId !== null && BigInt(w.lastId) > max) return { max: null, problem: null };
  return { max, problem: null };
}

export type Refusal = { kind: 'record' | 'decision'; refId: string; reason: string };

/** Stores refusals (once per row); returns those that were new. */
export async function storeRefusals(tx: Db, refusals: Refusal[]): Promise<Refusal[]> {
  if (refusals.length === 0) return [];
  const rows = await tx.$queryRawUnsafe<{ kind: string; refId: string }[]>(
    `INSERT INTO "LogRefusal" (kind, "refId", reason)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT DO NOTHING RETURNING kind, "refId"`,
    refusals.map((r) => r.kind),
    refusals.map((r) => r.refId),
    refusals.map((r) => r.reason),
  );
  const stored = new Set(rows.map((r) => `${r.kind}:${r.refId}`));
  return refusals.filter((r) => stored.has(`${r.kind}:${r.refId}`));
}
