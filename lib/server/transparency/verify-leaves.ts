import 'server-only';
import { hashFromHex, sameHash } from '@/lib/proof';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';
import { checkLeafRow, COPIED_COLUMNS } from './check-leaf';
import { decisionLeafHash, recordLeafHash } from './leaf-data';
import type { DecisionRow, RecordRow } from './sources';
import type { Db } from './store';

/**
 * One chunk of the background verifier's walk (verifier.ts): the leaves
 * `[from, to)` with everything needed to check them, read in ONE query that
 * joins each index to its LogLeaf row, its stored leaf hash (LogNode level
 * 0), the row it logs, and any decision that claims the index without being it.
 * A missing LogLeaf row shows as an index with nothing joined. Every join
 * also bounds its index to the chunk, so each side is an index range scan
 * and the rows a leaf names are LATERAL lookups by primary key (`LIMIT 1`
 * keeps them from being flattened into a join; without both, the planner
 * scanned whole tables per chunk: quadratic).
 */

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const UUID_RE = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

const CHUNK_SQL = `SELECT g.ix::text AS "index", l.kind, l."refId", (l."prunedAt" IS NOT NULL) AS pruned,
  encode(n.hash, 'hex') AS "leafHash",
  r.id::text AS id, CASE WHEN r.id IS NOT NULL THEN l."index"::text END AS "logIndex",
  r."hostId"::text AS "hostId",
  r.record, r."chainHash", r."prevHash", to_char(r."receivedAt", ${ISO}) AS "receivedAt",
  r."agentId", r."ticketId"::text AS "ticketId", ${COPIED_COLUMNS},
  d.id::text AS "dId", d."logIndex"::text AS "dLogIndex", d."ticketId"::text AS "dTicketId",
  t."hostId"::text AS "dHostId", d.outcome::text AS "dOutcome", d."contextIdentity" AS "dContextIdentity",
  d."decidedByKind" AS "dDecidedByKind", d."userId"::text AS "dUserId", d.note AS "dNote",
  to_char(d."createdAt", ${ISO}) AS "dDecidedAt", d.verdict AS "dVerdict", d.receipt AS "dReceipt",
  dx.id::text AS "dxId", dx."ticketId"::text AS "dxTicketId"
FROM generate_series($1::bigint, $2::bigint - 1) AS g(ix)
LEFT JOIN "LogLeaf" l ON l."index" = g.ix AND l."index" >= $1::bigint AND l."index" < $2::bigint
LEFT JOIN "LogNode" n ON n.level = 0 AND n."index" = g.ix AND n."index" >= $1::bigint AND n."index" < $2::bigint
LEFT JOIN LATERAL (SELECT * FROM "InterceptionRecord" r1
  WHERE r1.id = (CASE WHEN l.kind = 'record' AND l."refId" ~ '^[0-9]{1,18}$' THEN l."refId" END)::bigint LIMIT 1) r ON true
LEFT JOIN LATERAL (SELECT * FROM "Decision" d1
  WHERE d1.id = (CASE WHEN l.kind = 'decision' AND l."refId" ~ ${UUID_RE} THEN l."refId" END)::uuid LIMIT 1) d ON true
LEFT JOIN LATERAL (SELECT t1."hostId" FROM "ApprovalTicket" t1 WHERE t1.id = d."ticketId" LIMIT 1) t ON true
LEFT JOIN "Decision" dx ON dx."logIndex" = g.ix AND dx.id IS DISTINCT FROM d.id
  AND dx."logIndex" >= $1::bigint AND dx."logIndex" < $2::bigint
ORDER BY g.ix`;

type ChunkRow = Record<string, unknown> & {
  index: string;
  kind: string | null;
  refId: string | null;
  pruned: boolean | null;
  leafHash: string | null;
  id: string | null;
  dId: string | null;
  dxId: string | null;
};

export type CheckedChunk = {
  /** The hash each leaf contributes to the recomputed root (stored, else recomputed; null = unknown). */
  hashes: (Uint8Array | null)[];
  findings: IntegrityFinding[];
};

export async function checkLeafChunk(prisma: Db, from: number, to: number): Promise<CheckedChunk> {
  const rows = await prisma.$queryRawUnsafe<ChunkRow[]>(CHUNK_SQL, from, to);
  const findings: IntegrityFinding[] = [];
  const hashes = rows.map((row) => checkOne(row, findings));
  return { hashes, findings };
}

/** EXPLAIN ANALYZE of one chunk's query (bench/log-verify.ts --explain). */
export async function chunkPlan(prisma: Db, from: number, to: number): Promise<string> {
  const rows = await prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
    `EXPLAIN (ANALYZE, COSTS OFF) ${CHUNK_SQL}`,
    from,
    to,
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

function recordOf(row: ChunkRow): RecordRow {
  return {
    id: row.id as string,
    logIndex: row.logIndex as string | null,
    hostId: row.hostId as string,
    sessionId: row.sessionId as string,
    sequence: row.sequence as number,
    record: row.record,
    chainHash: row.chainHash as string,
    prevHash: row.prevHash as string | null,
    receivedAt: row.receivedAt as string,
    agentId: row.agentId as string | null,
    ticketId: row.ticketId as string | null,
  };
}

function decisionOf(row: ChunkRow): DecisionRow {
  return {
    id: row.dId as string,
    logIndex: row.dLogIndex as string | null,
    ticketId: row.dTicketId as string,
    hostId: row.dHostId as string,
    outcome: row.dOutcome as string,
    contextIdentity: row.dContextIdentity as string | null,
    decidedByKind: row.dDecidedByKind as string,
    userId: row.dUserId as string | null,
    note: row.dNote as string | null,
    decidedAt: row.dDecidedAt as string,
    verdict: row.dVerdict,
    receipt: row.dReceipt as string | null,
  };
}

const where = (r: RecordRow) =>
  `record ${r.id} (host ${r.hostId}, session "${r.sessionId}", sequence ${r.sequence})`;

/** Checks one leaf; returns the hash it contributes to the root. */
function checkOne(row: ChunkRow, out: IntegrityFinding[]): Uint8Array | null {
  const index = Number(row.index);
  const stored = row.leafHash ? hashFromHex(row.leafHash) : null;
  claimants(row, index, out);
  if (!row.kind) {
    out.push(
      finding('missing', 'record', `leaf ${index} has no LogLeaf row: the log's storage lost it`, {
        leafIndex: index,
      }),
    );
    return stored;
  }
  if (!stored) {
    out.push(
      finding(
        'missing',
        row.kind === 'decision' ? 'decision' : 'record',
        `leaf ${index} (${row.kind} ${row.refId}) has no stored leaf hash`,
        { leafIndex: index, recordId: row.kind === 'record' ? row.refId : null },
      ),
    );
  }
  if (row.kind === 'record') return checkRecord(row, index, stored, out);
  if (row.kind === 'decision') return checkDecision(row, index, stored, out);
  out.push(
    finding('altered', 'record', `leaf ${index} names an unknown kind "${row.kind}"`, {
      leafIndex: index,
    }),
  );
  return stored;
}

function gone(row: ChunkRow, index: number, out: IntegrityFinding[]): void {
  const subject = row.kind === 'decision' ? 'decision' : 'record';
  const what = `${row.kind} ${row.refId} (leaf ${index})`;
  const at = { leafIndex: index, recordId: subject === 'record' ? row.refId : null };
  out.push(
    row.pruned
      ? finding('deleted_by_retention', subject, `${what} was deleted by the retention policy`, at)
      : finding('missing', subject, `${what} is logged but its row was deleted`, at),
  );
}

function checkRecord(
  row: ChunkRow,
  index: number,
  stored: Uint8Array | null,
  out: IntegrityFinding[],
): Uint8Array | null {
  if (!row.id) {
    gone(row, index, out);
    return stored;
  }
  const rec = recordOf(row);
  const at = {
    recordId: rec.id,
    hostId: rec.hostId,
    sessionId: rec.sessionId,
    sequence: rec.sequence,
    leafIndex: index,
  };
  if (rec.logIndex !== String(index)) {
    out.push(
      finding(
        'altered',
        'record',
        `${where(rec)} is logged at leaf ${index} but its row names ${rec.logIndex === null ? 'no leaf' : `leaf ${rec.logIndex}`}`,
        at,
      ),
    );
  }
  const check = checkLeafRow({ ...rec, logIndex: String(index) }, row, {
    hash: stored,
    kind: 'record',
    refId: rec.id,
  });
  if (check.status === 'altered') {
    const fields = check.fields.join(', ');
    out.push(
      finding('altered', 'record', `${where(rec)} no longer matches leaf ${index} (${fields})`, at),
    );
  }
  return stored ?? safeRecomputed(() => recordLeafHash(rec));
}

function checkDecision(
  row: ChunkRow,
  index: number,
  stored: Uint8Array | null,
  out: IntegrityFinding[],
): Uint8Array | null {
  if (!row.dId) {
    gone(row, index, out);
    return stored;
  }
  const dec = decisionOf(row);
  const at = { ticketId: dec.ticketId, hostId: dec.hostId, leafIndex: index };
  const what = `decision ${dec.id} of ticket ${dec.ticketId}`;
  if (dec.logIndex !== String(index)) {
    out.push(
      finding(
        'altered',
        'decision',
        `${what} is logged at leaf ${index} but its row names ${dec.logIndex === null ? 'no leaf' : `leaf ${dec.logIndex}`}`,
        at,
      ),
    );
  }
  const computed = safeRecomputed(() => decisionLeafHash(dec));
  if (!computed || (stored && !sameHash(computed, stored))) {
    out.push(finding('altered', 'decision', `${what} no longer matches leaf ${index}`, at));
  }
  return stored ?? computed;
}

function safeRecomputed(fn: () => Uint8Array | null): Uint8Array | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

/**
 * Decisions that name this leaf although it logs something else: they never
 * came through the log. (A record names no leaf: its leaf is the LogLeaf row
 * naming it, unique per record.)
 */
function claimants(row: ChunkRow, index: number, out: IntegrityFinding[]): void {
  const owner = row.kind ? `${row.kind} ${row.refId}` : 'nothing';
  if (row.dxId) {
    out.push(
      finding(
        'forged',
        'decision',
        `decision ${row.dxId} of ticket ${row.dxTicketId} names leaf ${index}, which logs ${owner}`,
        { ticketId: row.dxTicketId as string, leafIndex: index },
      ),
    );
  }
}
