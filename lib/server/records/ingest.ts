import 'server-only';
import { type SqlTx, sqlTransaction } from '@/lib/server/db/sql-transaction';
import { assertNoNulCharacter } from '@/lib/server/http/nul-character';
import { countIngested } from '@/lib/server/metrics/records';
import { chainHashOf } from './chain';
import { COPY_RECORDS_SQL, copyChunks, type RecordRow, recordRow, unnestInsert } from './columns';
import {
  conflictError,
  dedupeWithinBatch,
  keyOf,
  prepareAll,
  type RecordConflict,
} from './prepare-batch';
import type { PreparedRecord, RecordError } from './validate-record';

/**
 * The one write path of the audit store (there is no update path, and the
 * retention job is the only delete). A batch is all or nothing: every record
 * is judged first, then one transaction locks the batch's session chains,
 * classifies each record as new, duplicate or conflicting, stores the new
 * ones with one COPY and moves the chain heads. The caller answers 2xx
 * only after this resolves, i.e. after commit.
 *
 * Out-of-order arrival: a session's chain follows arrival order. Within a
 * batch records are chained in sequence order; a later batch may carry a
 * lower sequence (parallel tool calls finish out of order), which is
 * appended after the current head rather than refused, so nothing a host
 * emitted is lost. The timeline orders by sequence; verification walks the
 * chain in stored (id) order and reports sequence holes separately.
 */

export type IngestResult = { accepted: number; duplicates: number };

export type IngestOptions = {
  /** Recorded on every row; records themselves carry no agent id (§10.3). */
  agentId?: string | null;
  /** Records that already failed to parse (NDJSON lines), reported with the rest. */
  parseErrors?: RecordError[];
};

/** The longest an ingest transaction lives (the log appender's time check relies on it). */
export const INGEST_TX_TIMEOUT_MS = 60_000;

export async function ingestRecords(
  hostId: string,
  values: unknown[],
  opts: IngestOptions = {},
): Promise<IngestResult> {
  assertNoNulCharacter(opts.agentId ?? null, 'agent_id');
  const prepared = prepareAll(values, opts.parseErrors ?? []);
  if (prepared.length === 0) return { accepted: 0, duplicates: 0 };
  const { unique, duplicates } = dedupeWithinBatch(prepared);
  const result = await sqlTransaction(
    (tx) => appendInTx(tx, hostId, unique, opts.agentId ?? null),
    { timeoutMs: INGEST_TX_TIMEOUT_MS },
  );
  countIngested(result.inserted);
  return {
    accepted: result.inserted.length,
    duplicates: duplicates + unique.length - result.inserted.length,
  };
}

type Chain = { sessionId: string; headHash: string; lastSequence: number; recordCount: number };

async function appendInTx(
  tx: SqlTx,
  hostId: string,
  records: PreparedRecord[],
  agentId: string | null,
): Promise<{ inserted: PreparedRecord[] }> {
  const chained = records.filter((r) => !r.hostFailure);
  const failures = records.filter((r) => r.hostFailure);
  const sessions = [...new Set(chained.map((r) => r.sessionId))].sort();
  const { heads, now } = await lockChains(tx, hostId, sessions);

  const fresh = await dropStored(tx, hostId, chained, failures, heads);
  if (fresh.length === 0) return { inserted: [] };
  const tickets = await ticketsFor(tx, hostId, fresh);
  const rows = linkChains(fresh, heads);

  const receivedAt = now ?? (await transactionTime(tx));
  const inserted = await insertRows(tx, hostId, rows, tickets, agentId, receivedAt);
  const chainedRows = rows.filter((r) => !r.rec.hostFailure).length;
  if (inserted.chained !== chainedRows) {
    // Cannot happen under the chain lock; if it does, the heads would point at
    // rows that do not exist, so roll back and let the host retry.
    throw new Error(`chained insert stored ${inserted.chained} of ${chainedRows} rows`);
  }
  await moveHeads(tx, hostId, rows);
  // A concurrent batch may have stored the same host-failure record first
  // (they take no chain lock); ON CONFLICT skipped it, which is a duplicate.
  const failuresStored = inserted.total - inserted.chained;
  let failuresLeft = failuresStored;
  return {
    inserted: rows.map((r) => r.rec).filter((r) => !r.hostFailure || failuresLeft-- > 0),
  };
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The rows' receivedAt: the transaction's start (now()), at the column's
 * precision, as the column default would store it. Read before the insert
 * because the row's seal covers it (seal.ts).
 */
async function transactionTime(tx: SqlTx): Promise<string> {
  const rows = await tx.query<{ now: string }>(
    `SELECT to_char(now()::timestamp(3), ${ISO}) AS now`,
  );
  return rows[0].now;
}

/**
 * Creates missing SessionChain rows and locks them all, in session order, so
 * that concurrent batches touching one session serialize and never deadlock.
 * Also returns the transaction's time (transactionTime), read by the same
 * statement to spare a round trip; null when there is no session to lock.
 */
async function lockChains(tx: SqlTx, hostId: string, sessions: string[]) {
  const heads = new Map<string, Chain>();
  if (sessions.length === 0) return { heads, now: null };
  await tx.query(
    `INSERT INTO "SessionChain" ("hostId", "sessionId", "lastSequence", "headHash", "recordCount", "updatedAt")
     SELECT $1::uuid, s, -1, '', 0, now() FROM unnest($2::text[]) AS s
     ON CONFLICT ("hostId", "sessionId") DO NOTHING`,
    [hostId, sessions],
  );
  const rows = await tx.query<Chain & { now: string }>(
    `SELECT "sessionId", "headHash", "lastSequence", "recordCount",
       to_char(now()::timestamp(3), ${ISO}) AS now
     FROM "SessionChain"
     WHERE "hostId" = $1::uuid AND "sessionId" = ANY($2::text[])
     ORDER BY "sessionId" FOR UPDATE`,
    [hostId, sessions],
  );
  for (const { now: _, ...row } of rows) heads.set(row.sessionId, row);
  return { heads, now: rows[0]?.now ?? null };
}

/** Removes records already stored (identical → duplicate) and refuses different ones (409). */
async function dropStored(
  tx: SqlTx,
  hostId: string,
  chained: PreparedRecord[],
  failures: PreparedRecord[],
  heads: Map<string, Chain>,
): Promise<PreparedRecord[]> {
  const stored = new Map<string, string>();
  // Only a sequence at or below its session's highest stored one can already
  // exist; in-order appends (the usual case) look nothing up.
  const candidates = chained.filter((r) => {
    const head = heads.get(r.sessionId);
    return head !== undefined && head.recordCount > 0 && r.sequence <= head.lastSequence;
  });
  if (candidates.length > 0) {
    const rows = await tx.query<{ sessionId: string; sequence: number; contentHash: string }>(
      `SELECT "sessionId", "sequence", "contentHash" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "dedupeKey" = ''
         AND ("sessionId", "sequence") IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
      [hostId, candidates.map((r) => r.sessionId), candidates.map((r) => r.sequence)],
    );
    for (const row of rows)
      stored.set(`s\u0000${row.sessionId}\u0000${row.sequence}`, row.contentHash);
  }
  if (failures.length > 0) {
    const rows = await tx.query<{ dedupeKey: string }>(
      `SELECT "dedupeKey" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = '' AND "sequence" = -1
         AND "dedupeKey" = ANY($2::text[])`,
      [hostId, failures.map((r) => r.contentHash)],
    );
    for (const row of rows) stored.set(`f\u0000${row.dedupeKey}`, row.dedupeKey);
  }
  if (stored.size === 0) return [...chained, ...failures];
  const conflicts: RecordConflict[] = [];
  const fresh: PreparedRecord[] = [];
  for (const r of [...chained, ...failures]) {
    const hash = stored.get(keyOf(r));
    if (hash === undefined) fresh.push(r);
    else if (hash !== r.contentHash) {
      conflicts.push({ index: r.index, session_id: r.sessionId, sequence: r.sequence });
    }
  }
  if (conflicts.length > 0) {
    conflicts.sort((a, b) => a.index - b.index);
    throw conflictError(conflicts, 'stored');
  }
  return fresh;
}

/** Approval tickets of the same host, session id and sequence (issue 5 links them this way). */
async function ticketsFor(tx: SqlTx, hostId: string, records: PreparedRecord[]) {
  const candidates = records.filter((r) => !r.hostFailure && r.record.resolved_by != null);
  const byKey = new Map<string, string>();
  if (candidates.length === 0) return byKey;
  const rows = await tx.query<{ id: string; sessionId: string; sequence: number }>(
    `SELECT DISTINCT ON ("sessionId", "sequence") id::text AS id, "sessionId", "sequence"
     FROM "ApprovalTicket"
     WHERE "hostId" = $1::uuid
       AND ("sessionId", "sequence") IN (SELECT * FROM unnest($2::text[], $3::int[]))
     ORDER BY "sessionId", "sequence", "createdAt" DESC`,
    [hostId, candidates.map((r) => r.sessionId), candidates.map((r) => r.sequence)],
  );
  for (const row of rows) byKey.set(`${row.sessionId}\u0000${row.sequence}`, row.id);
  return byKey;
}

type Row = { rec: PreparedRecord; chainHash: string; prevHash: string | null };

/** Chains each session's new records in sequence order after its current head. */
function linkChains(records: PreparedRecord[], heads: Map<string, Chain>): Row[] {
  const sorted = [...records].sort(
    (a, b) =>
      Number(a.hostFailure) - Number(b.hostFailure) ||
      (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0) ||
      a.sequence - b.sequence,
  );
  const head = new Map<string, string>();
  for (const [s, c] of heads) head.set(s, c.headHash);
  return sorted.map((rec) => {
    if (rec.hostFailure) {
      // Outside every chain: the link is over the record alone.
      return { rec, chainHash: chainHashOf(null, rec.canonical), prevHash: null };
    }
    const prev = head.get(rec.sessionId) || null;
    const chainHash = chainHashOf(prev, rec.canonical);
    head.set(rec.sessionId, chainHash);
    return { rec, chainHash, prevHash: prev };
  });
}

/**
 * Stores the batch: the chained rows with one COPY (ids in chain order;
 * nothing can collide with them under the chain locks, so a unique
 * violation fails the batch), then the host failures, which take no lock,
 * with an INSERT whose ON CONFLICT skips one a concurrent batch stored first.
 */
async function insertRows(
  tx: SqlTx,
  hostId: string,
  rows: Row[],
  tickets: Map<string, string>,
  agentId: string | null,
  receivedAt: string,
): Promise<{ total: number; chained: number }> {
  const toRow = ({ rec, chainHash, prevHash }: Row): RecordRow =>
    recordRow(rec.record, {
      sessionId: rec.sessionId,
      sequence: rec.sequence,
      agentId,
      record: rec.canonical,
      chainHash,
      prevHash,
      ticketId: tickets.get(`${rec.sessionId}\u0000${rec.sequence}`) ?? null,
      receivedAt,
      contentHash: rec.contentHash,
      hostFailure: rec.hostFailure,
      dedupeKey: rec.hostFailure ? rec.contentHash : '',
    });
  // linkChains put the host failures last.
  const split = rows.findIndex((r) => r.rec.hostFailure);
  const chained = split < 0 ? rows : rows.slice(0, split);
  const failures = split < 0 ? [] : rows.slice(split);
  const copied =
    chained.length === 0
      ? 0
      : await tx.copyFrom(COPY_RECORDS_SQL, copyChunks(hostId, chained.map(toRow)));
  if (failures.length === 0) return { total: copied, chained: copied };
  const insert = unnestInsert(hostId, failures.map(toRow), 'ON CONFLICT DO NOTHING RETURNING 1');
  const stored = await tx.query<{ n: number }>(
    `WITH ins AS (${insert.sql}) SELECT count(*)::int AS n FROM ins`,
    insert.params,
  );
  return { total: copied + (stored[0]?.n ?? 0), chained: copied };
}

async function moveHeads(tx: SqlTx, hostId: string, rows: Row[]): Promise<void> {
  const bySession = new Map<string, { head: string; last: number; n: number }>();
  for (const { rec, chainHash } of rows) {
    if (rec.hostFailure) continue;
    const s = bySession.get(rec.sessionId);
    if (!s) bySession.set(rec.sessionId, { head: chainHash, last: rec.sequence, n: 1 });
    else {
      s.head = chainHash;
      s.last = Math.max(s.last, rec.sequence);
      s.n++;
    }
  }
  if (bySession.size === 0) return;
  const entries = [...bySession.entries()];
  await tx.query(
    `UPDATE "SessionChain" c
     SET "headHash" = u.head, "lastSequence" = GREATEST(c."lastSequence", u.last),
         "recordCount" = c."recordCount" + u.n, "updatedAt" = now()
     FROM unnest($2::text[], $3::text[], $4::int[], $5::int[]) AS u(s, head, last, n)
     WHERE c."hostId" = $1::uuid AND c."sessionId" = u.s`,
    [
      hostId,
      entries.map(([s]) => s),
      entries.map(([, v]) => v.head),
      entries.map(([, v]) => v.last),
      entries.map(([, v]) => v.n),
    ],
  );
}
