import 'server-only';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import { sameHash, toHex } from '@/lib/proof';
import { recordColumns } from '@/lib/server/records/validate-record';
import { recordLeafHash } from './leaf-data';
import { recordById } from './sources';
import { type Db, fetchSubtrees } from './store';

/**
 * Checks a stored record against the log, as the record and timeline pages
 * do: the row's leaf data must hash to the leaf stored at its index, that
 * leaf must name this record, and every column a page shows that is copied
 * from the record JSON must equal what the JSON says (an UPDATE of the
 * `decision` column alone changes no hash, so it is compared here).
 */
export type LeafCheck =
  | { status: 'ok'; index: number; leafHash: string }
  /** Logged, but the row no longer hashes to its leaf (`fields`: copied columns that disagree with the JSON). */
  | { status: 'altered'; index: number | null; fields: string[] }
  /** Not appended yet (the appender runs within seconds of ingest). */
  | { status: 'not_logged' }
  /** The row names a leaf the log does not hold (or a leaf of another row). */
  | { status: 'leaf_missing'; index: number }
  | { status: 'record_missing' };

type Columns = Record<string, unknown>;

/** Copied columns that do not equal their value derived from the record JSON. */
function columnMismatches(row: Columns, record: unknown): string[] {
  let derived: Columns;
  try {
    const cols = recordColumns(record as InterceptionRecord);
    derived = { ...cols, timestamp: cols.timestamp?.toISOString() ?? null };
  } catch {
    return ['record'];
  }
  const r = record as { session_id?: unknown; sequence?: unknown };
  derived.sessionId = r.session_id;
  derived.sequence = r.sequence;
  return Object.keys(derived).filter((k) => (row[k] ?? null) !== (derived[k] ?? null));
}

export async function checkLeaf(prisma: Db, recordId: string): Promise<LeafCheck> {
  const row = await recordById(prisma, recordId);
  if (!row) return { status: 'record_missing' };
  const columns = await prisma.$queryRawUnsafe<Columns[]>(
    `SELECT "interceptionPoint", mode, decision, reason, "resolvedBy", "foldTruncated",
       "decidedBy", "hostError", "identityProvider", "inputIdentity", "enforcedIdentity",
       to_char(timestamp, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp, "sessionId", sequence
     FROM "InterceptionRecord" WHERE id = $1::bigint`,
    recordId,
  );
  const fields = columnMismatches(columns[0] ?? {}, row.record);
  if (row.logIndex === null) {
    return fields.length > 0
      ? { status: 'altered', index: null, fields }
      : { status: 'not_logged' };
  }
  const index = Number(row.logIndex);
  const [stored, leaf] = await Promise.all([
    fetchSubtrees(prisma, [{ level: 0, index }]),
    prisma.$queryRawUnsafe<{ kind: string; refId: string }[]>(
      `SELECT kind, "refId" FROM "LogLeaf" WHERE "index" = $1::bigint`,
      index,
    ),
  ]);
  const hash = stored.get(`0:${index}`);
  if (!hash || leaf[0]?.kind !== 'record' || leaf[0]?.refId !== recordId) {
    return { status: 'leaf_missing', index };
  }
  let computed: Uint8Array | null = null;
  try {
    computed = recordLeafHash(row);
  } catch {
    computed = null;
  }
  if (!computed || !sameHash(computed, hash)) {
    return { status: 'altered', index, fields: fields.length > 0 ? fields : ['record'] };
  }
  if (fields.length > 0) return { status: 'altered', index, fields };
  return { status: 'ok', index, leafHash: toHex(hash) };
}
