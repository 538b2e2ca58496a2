import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { appendLeaves, toHex } from '@/lib/proof';
import { decisionLeafHash, recordLeafHash } from './leaf-data';
import { lockLog, serialized } from './lock';
import { type DecisionRow, type RecordRow, unloggedDecisions, unloggedRecords } from './sources';
import { type Db, logSize, readFrontier } from './store';

/**
 * The appender (issue 13 item 3): moves stored records and decisions that
 * are not in the log yet (`logIndex IS NULL`) into it, in one transaction
 * per batch: consecutive leaf indexes from the current size, the LogLeaf
 * rows, every perfect subtree the batch completes (LogNode, leaves
 * included), and each row's `logIndex`. Single writer (lock.ts), so indexes
 * have no gaps and no duplicates; the unique `logIndex` columns and the
 * LogLeaf/LogNode primary keys make a second writer fail rather than fork
 * the tree.
 *
 * It runs in the background (runtime.ts), never in the ingest request, so
 * ingest throughput does not depend on it.
 */

export const DEFAULT_APPEND_BATCH = 2_000;
const TX_TIMEOUT_MS = 60_000;

export type AppendResult = { appended: number; size: number };

type Pending =
  | { kind: 'record'; at: string; id: string; hash: Uint8Array }
  | { kind: 'decision'; at: string; id: string; hash: Uint8Array };

/** Records first on a tie: a decision's record usually arrives after it, never before. */
function merge(records: RecordRow[], decisions: DecisionRow[], batch: number): Pending[] {
  const out: Pending[] = [];
  let i = 0;
  let j = 0;
  while (out.length < batch && (i < records.length || j < decisions.length)) {
    const r = records[i];
    const d = decisions[j];
    if (r && (!d || r.receivedAt <= d.decidedAt)) {
      out.push({ kind: 'record', at: r.receivedAt, id: r.id, hash: recordLeafHash(r) });
      i++;
    } else {
      out.push({ kind: 'decision', at: d.decidedAt, id: d.id, hash: decisionLeafHash(d) });
      j++;
    }
  }
  return out;
}

async function appendInTx(tx: Db, batch: number): Promise<AppendResult> {
  await lockLog(tx);
  const size = await logSize(tx);
  const records = await unloggedRecords(tx, batch);
  const decisions = await unloggedDecisions(tx, batch);
  const pending = merge(records, decisions, batch);
  if (pending.length === 0) return { appended: 0, size };
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
  const recs = pending.flatMap((p, k) => (p.kind === 'record' ? [[p.id, indexes[k]]] : []));
  if (recs.length > 0) {
    await tx.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" r SET "logIndex" = u.ix
       FROM unnest($1::bigint[], $2::bigint[]) AS u(id, ix) WHERE r.id = u.id`,
      recs.map(([id]) => id),
      recs.map(([, ix]) => ix),
    );
  }
  const decs = pending.flatMap((p, k) => (p.kind === 'decision' ? [[p.id, indexes[k]]] : []));
  if (decs.length > 0) {
    await tx.$executeRawUnsafe(
      `UPDATE "Decision" d SET "logIndex" = u.ix
       FROM unnest($1::uuid[], $2::bigint[]) AS u(id, ix) WHERE d.id = u.id`,
      decs.map(([id]) => id),
      decs.map(([, ix]) => ix),
    );
  }
  return { appended: pending.length, size: size + pending.length };
}

/** Appends up to `batch` pending records and decisions; `appended: 0` when nothing waits. */
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
  let total = 0;
  for (;;) {
    const r = await appendPending(prisma, { batch });
    total += r.appended;
    if (r.appended < batch) return { appended: total, size: r.size };
  }
}
