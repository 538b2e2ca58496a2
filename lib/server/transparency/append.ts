import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { appendLeaves, toHex } from '@/lib/proof';
import { moduleLogger } from '@/lib/server/logger';
import { recordLeafHashHex } from '@/lib/server/records/leaf-hash';
import { isSealV2 } from '@/lib/server/records/seal';
import { publicJwksOf } from '@/lib/server/signing';
import {
  type AcceptedRecord,
  judgeDecisions,
  judgeRecords,
  judgeSealedRecords,
  RECEIVED_TOLERANCE_MS,
} from './append-guard';
import {
  type PendingHead,
  pendingRecordHeads,
  pendingRecordsById,
  preSealBound,
  receivedWindow,
  sessionContexts,
  sessionKey,
  storeRefusals,
  unloggedDecisions,
} from './backlog';
import { decisionLeafHash } from './leaf-data';
import { lockLog, serialized } from './lock';
import { advanceRecordCursor, type RecordCursor, readRecordCursor } from './record-cursor';
import type { DecisionRow } from './sources';
import { type Db, logSize, readFrontier } from './store';

/**
 * The appender (issue 13 item 3): moves stored records and decisions that
 * are not in the log yet into it, in one transaction per batch:
 * consecutive leaf indexes from the current size, the LogLeaf rows, every
 * perfect subtree the batch completes (LogNode, leaves included), and each
 * decision's `logIndex`. A record's leaf is its LogLeaf row alone (unique
 * (kind, "refId")): records are never updated, and are found by an id
 * cursor (record-cursor.ts). Single writer (lock.ts), so indexes have no
 * gaps and no duplicates; the unique LogLeaf (kind, "refId") index and
 * `Decision.logIndex`, and the LogLeaf/LogNode primary keys make a second
 * writer fail rather than fork the tree.
 *
 * Before anything is appended each row is judged (append-guard.ts). Records
 * ingest wrote with a v2 seal carry their leaf hash: the seal is checked and
 * the hash appended, the record is not read. Older rows (sealed v1, or from
 * before seals) are read whole and go through the full guard. A row that
 * cannot have come through ingest or a decision is refused (LogRefusal, one
 * warning each) and never blocks the rows behind it.
 *
 * It runs in the background (runtime.ts), never in the ingest request, so
 * ingest throughput does not depend on it.
 */

export const DEFAULT_APPEND_BATCH = 2_000;
const TX_TIMEOUT_MS = 60_000;

export type AppendResult = {
  appended: number;
  size: number;
  /** Rows refused in this call (LogRefusal). */
  refused: number;
  /** Rows read but left for a later call (the batch was full). */
  more: boolean;
};

const log = moduleLogger('transparency-log');

type Pending = { kind: 'record' | 'decision'; id: string; hash: Uint8Array };

/** A record the guard let through, with its leaf hash. */
type LoggableRecord = { id: string; receivedAt: string; hash: Uint8Array };

function leafHashOf(r: AcceptedRecord): Uint8Array {
  return Buffer.from(recordLeafHashHex(r, r.canonical), 'hex');
}

/**
 * Records first on a tie: a decision's record usually arrives after it,
 * never before. Takes a prefix of each list, so a record is never appended
 * before the records of its session that precede it.
 */
function merge(records: LoggableRecord[], decisions: DecisionRow[], batch: number): Pending[] {
  const out: Pending[] = [];
  let i = 0;
  let j = 0;
  while (out.length < batch && (i < records.length || j < decisions.length)) {
    const r = records[i];
    const d = decisions[j];
    if (r && (!d || r.receivedAt <= d.decidedAt)) {
      out.push({ kind: 'record', id: r.id, hash: r.hash });
      i++;
    } else {
      out.push({ kind: 'decision', id: d.id, hash: decisionLeafHash(d) });
      j++;
    }
  }
  return out;
}

const fastPath = (h: PendingHead) => isSealV2(h.seal) && h.leafHash !== null;

/**
 * The pending records of one batch the guard lets through, and its
 * refusals. A batch is all v2-sealed rows (judged on their seal) or all
 * older rows (judged in full): the leading run of the backlog of one kind,
 * so the full guard's chain context never misses a row appended in the
 * same batch.
 */
async function judgedRecords(tx: Db, cursor: RecordCursor, batch: number) {
  const heads = await pendingRecordHeads(tx, cursor.lowId, batch);
  const first = heads[0];
  if (!first) return { heads, accepted: [], refused: [], full: false };
  const kind = fastPath(first);
  const run = heads.findIndex((h) => fastPath(h) !== kind);
  const taken = run === -1 ? heads : heads.slice(0, run);
  const full = heads.length >= batch || taken.length < heads.length;
  if (kind) return { heads, ...judgeSealedRecords(taken), full };
  const records = await pendingRecordsById(
    tx,
    taken.map((h) => h.id),
  );
  const sessions = new Map<string, { hostId: string; sessionId: string }>();
  for (const r of records) {
    if (!r.hostFailure) sessions.set(sessionKey(r.hostId, r.sessionId), r);
  }
  const contexts = await sessionContexts(tx, [...sessions.values()]);
  const window = await receivedWindow(tx, RECEIVED_TOLERANCE_MS);
  const preSeal = records.length > 0 ? await preSealBound(tx) : { max: null, problem: null };
  if (preSeal.problem)
    log.warn({ problem: preSeal.problem }, 'transparency log: every record needs a seal');
  const judged = judgeRecords(records, contexts, window, { preSealMax: preSeal.max });
  return {
    heads,
    accepted: judged.accepted.map((r) => ({
      id: r.id,
      receivedAt: r.receivedAt,
      hash: leafHashOf(r),
    })),
    refused: judged.refused,
    full,
  };
}

/** The rows of one batch the guard lets through; refusals stored (and warned about) once. */
async function guarded(tx: Db, cursor: RecordCursor, batch: number) {
  const records = await judgedRecords(tx, cursor, batch);
  const decisions = await unloggedDecisions(tx, batch);
  // The keys are read in this transaction: the embedded database has one
  // connection, so a read through the global client would wait for this
  // transaction to end (and it would wait for the read) until it timed out.
  const judgedDecisions = await judgeDecisions(decisions, () =>
    publicJwksOf(tx as unknown as PrismaClient),
  );
  const fresh = await storeRefusals(tx, [...records.refused, ...judgedDecisions.refused]);
  for (const f of fresh) {
    log.warn(
      { kind: f.kind, refId: f.refId, reason: f.reason },
      'transparency log: row refused, it cannot have come through ingest or a decision',
    );
  }
  return {
    heads: records.heads,
    refusedRecords: records.refused.map((r) => r.refId),
    records: records.accepted,
    decisions: judgedDecisions.accepted,
    refused: fresh.length,
    full: records.full || decisions.length >= batch,
  };
}

/**
 * The highest id up to which every pending record the pass read was
 * appended or refused; null when it read and handled every one it could
 * see (record-cursor.ts).
 */
function handledThrough(
  heads: { id: string }[],
  handled: Set<string>,
  batch: number,
): bigint | null {
  for (const h of heads) {
    if (!handled.has(h.id)) return BigInt(h.id) - 1n;
  }
  if (heads.length < batch) return null;
  const last = heads[heads.length - 1];
  return last ? BigInt(last.id) : null;
}

async function appendInTx(tx: Db, batch: number): Promise<AppendResult> {
  await lockLog(tx);
  const size = await logSize(tx);
  const cursor = await readRecordCursor(tx);
  const { heads, refusedRecords, records, decisions, refused, full } = await guarded(
    tx,
    cursor,
    batch,
  );
  const pending = merge(records, decisions, batch);
  const more = full || pending.length < records.length + decisions.length;
  const handled = new Set(refusedRecords);
  for (const p of pending) if (p.kind === 'record') handled.add(p.id);
  await advanceRecordCursor(tx, cursor, handledThrough(heads, handled, batch));
  if (pending.length === 0) return { appended: 0, size, refused, more };
  const frontier = await readFrontier(tx, size);
  const { created } = appendLeaves(
    frontier,
    pending.map((p) => p.hash),
  );
  const indexes = pending.map((_, k) => size + k);
  await tx.$executeRawUnsafe(
    `INSERT INTO "LogLeaf" ("index", "kind", "refId")
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])`,
    indexes,
    pending.map((p) => p.kind),
    pending.map((p) => p.id),
  );
  await tx.$executeRawUnsafe(
    `INSERT INTO "LogNode" ("level", "index", "hash")
     SELECT l, i, decode(h, 'hex') FROM unnest($1::int[], $2::bigint[], $3::text[]) AS u(l, i, h)`,
    created.map((s) => s.level),
    created.map((s) => s.index),
    created.map((s) => toHex(s.hash)),
  );
  const decs = pending.flatMap((p, k) => (p.kind === 'decision' ? [[p.id, indexes[k]]] : []));
  if (decs.length > 0) {
    await tx.$executeRawUnsafe(
      `UPDATE "Decision" d SET "logIndex" = u.ix
       FROM unnest($1::uuid[], $2::bigint[]) AS u(id, ix) WHERE d.id = u.id`,
      decs.map(([id]) => id),
      decs.map(([, ix]) => ix),
    );
  }
  return { appended: pending.length, size: size + pending.length, refused, more };
}

/** Appends up to `batch` pending records and decisions; `more: false` when nothing else waits. */
export function appendPending(
  prisma: PrismaClient,
  opts: { batch?: number } = {},
): Promise<AppendResult> {
  const batch = opts.batch ?? DEFAULT_APPEND_BATCH;
  return serialized(() =>
    prisma.$transaction((tx) => appendInTx(tx, batch), {
      timeout: TX_TIMEOUT_MS,
      maxWait: TX_TIMEOUT_MS,
    }),
  );
}

/** Appends until nothing is pending (tests, on-demand exports); returns the total. */
export async function appendAll(
  prisma: PrismaClient,
  opts: { batch?: number } = {},
): Promise<AppendResult> {
  const batch = opts.batch ?? DEFAULT_APPEND_BATCH;
  let appended = 0;
  let refused = 0;
  for (;;) {
    const r = await appendPending(prisma, { batch });
    appended += r.appended;
    refused += r.refused;
    if (!r.more) return { appended, size: r.size, refused, more: false };
  }
}
