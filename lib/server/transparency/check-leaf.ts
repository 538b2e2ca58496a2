import 'server-only';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import { sameHash, toHex } from '@/lib/proof';
import { recordColumns } from '@/lib/server/records/validate-record';
import { recordLeafHash } from './leaf-data';
import { type RecordRow, recordById } from './sources';
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
  /**
   * Logged, but the row no longer hashes to its leaf (`fields`: copied
   * columns that disagree with the JSON, or `record` when only the hashed
   * data changed; `mismatches`: what each such column says against the JSON).
   */
  | { status: 'altered'; index: number | null; fields: string[]; mismatches?: ColumnMismatch[] }
  /** Not appended yet (the appender runs within seconds of ingest). */
  | { status: 'not_logged' }
  /** The row names a leaf the log does not hold (or a leaf of another row). */
  | { status: 'leaf_missing'; index: number }
  | { status: 'record_missing' };

type Columns = Record<string, unknown>;

/** A copied column and what the record JSON says it should be. */
export type ColumnMismatch = { field: string; column: unknown; record: unknown };

/**
 * The copied columns of "InterceptionRecord" r, in the forms
 * `columnMismatches` compares (the timestamp as ISO text).
 */
export const COPIED_COLUMNS = `r."interceptionPoint", r.mode, r.decision, r.reason,
  r."resolvedBy", r."foldTruncated", r."decidedBy", r."hostError", r."identityProvider",
  r."inputIdentity", r."enforcedIdentity",
  to_char(r.timestamp, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp, r."sessionId", r.sequence`;

/** Copied columns that do not equal their value derived from the record JSON. */
export function columnMismatches(row: Columns, record: unknown): ColumnMismatch[] {
  let derived: Columns;
  try {
    const cols = recordColumns(record as InterceptionRecord);
    derived = { ...cols, timestamp: cols.timestamp?.toISOString() ?? null };
  } catch {
    return [{ field: 'record', column: null, record: null }];
  }
  const r = record as { session_id?: unknown; sequence?: unknown };
  derived.sessionId = r.session_id;
  derived.sequence = r.sequence;
  return Object.keys(derived)
    .filter((k) => (row[k] ?? null) !== (derived[k] ?? null))
    .map((k) => ({ field: k, column: row[k] ?? null, record: derived[k] ?? null }));
}

/** What the log stores for a row's leaf index: the leaf hash and whose leaf it is. */
export type StoredLeaf = { hash: Uint8Array | null; kind: string | null; refId: string | null };

/**
 * The comparison of `checkLeaf`, for a row already read with its copied
 * columns and its stored leaf (`leaf` ignored when the row names none), so
 * a caller checking many rows reads them in bulk.
 */
export function checkLeafRow(row: RecordRow, columns: Columns, leaf: StoredLeaf | null): LeafCheck {
  const mismatches = columnMismatches(columns, row.record);
  const fields = mismatches.map((m) => m.field);
  if (row.logIndex === null) {
    return fields.length > 0
      ? { status: 'altered', index: null, fields, mismatches }
      : { status: 'not_logged' };
  }
  const index = Number(row.logIndex);
  if (!leaf?.hash || leaf.kind !== 'record' || leaf.refId !== row.id) {
    return { status: 'leaf_missing', index };
  }
  let computed: Uint8Array | null = null;
  try {
    computed = recordLeafHash(row);
  } catch {
    computed = null;
  }
  if (!computed || !sameHash(computed, leaf.hash)) {
    return {
      status: 'altered',
      index,
      fields: fields.length > 0 ? fields : ['record'],
      mismatches,
    };
  }
  if (fields.length > 0) return { status: 'altered', index, fields, mismatches };
  return { status: 'ok', index, leafHash: toHex(leaf.hash) };
}

export async function checkLeaf(prisma: Db, recordId: string): Promise<LeafCheck> {
  const row = await recordById(prisma, recordId);
  if (!row) return { status: 'record_missing' };
  const columns = await prisma.$queryRawUnsafe<Columns[]>(
    `SELECT ${COPIED_COLUMNS} FROM "InterceptionRecord" r WHERE r.id = $1::bigint`,
    recordId,
  );
  if (row.logIndex === null) return checkLeafRow(row, columns[0] ?? {}, null);
  const index = Number(row.logIndex);
  const [stored, leaf] = await Promise.all([
    fetchSubtrees(prisma, [{ level: 0, index }]),
    prisma.$queryRawUnsafe<{ kind: string; refId: string }[]>(
      `SELECT kind, "refId" FROM "LogLeaf" WHERE "index" = $1::bigint`,
      index,
    ),
  ]);
  return checkLeafRow(row, columns[0] ?? {}, {
    hash: stored.get(`0:${index}`) ?? null,
    kind: leaf[0]?.kind ?? null,
    refId: leaf[0]?.refId ?? null,
  });
}
