import 'server-only';
import { hashFromHex, sameHash, toHex } from '@/lib/proof';
import { config } from '@/lib/server/config';
import {
  type ColumnMismatch,
  checkLeafRow,
  COPIED_COLUMNS,
  type LeafCheck,
} from '@/lib/server/transparency/check-leaf';
import { recordLeafHash } from '@/lib/server/transparency/leaf-data';
import type { RecordRow } from '@/lib/server/transparency/sources';
import type { Db } from '@/lib/server/transparency/store';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';

/**
 * A record row as the integrity checks read it: the leaf source (text forms
 * exactly as transparency/sources.ts reads them, or the hash would differ),
 * the copied columns, and what the log stores for it, in ONE query for any
 * number of rows, so a session is checked without a query per record.
 */
export type IntegrityRow = RecordRow &
  Record<string, unknown> & {
    hostFailure: boolean;
    leafHash: string | null;
    leafKind: string | null;
    leafRef: string | null;
    /** Received longer ago than the appender's grace (`unloggedGraceMs`). */
    pastGrace: boolean;
    /** Why the appender refused it ("LogRefusal"), if it did. */
    refusal: string | null;
  };

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * A record not in the log this long after it was received did not come
 * through ingest: the appender logs within LOG_APPEND_INTERVAL_MS, the
 * margin covers a busy or restarting worker.
 */
export function unloggedGraceMs(): number {
  return 3 * config().LOG_APPEND_INTERVAL_MS + 30_000;
}

let refusalTable = false;

/** Whether the appender's "LogRefusal" table exists (it arrives with a later migration). */
export async function hasRefusalTable(db: Db): Promise<boolean> {
  if (refusalTable) return true;
  const rows = await db.$queryRawUnsafe<{ found: boolean }[]>(
    `SELECT to_regclass('"LogRefusal"') IS NOT NULL AS found`,
  );
  refusalTable = rows[0]?.found === true;
  return refusalTable;
}

/** The SELECT of IntegrityRow over "InterceptionRecord" r; `where` uses $-parameters from $1. */
export function integrityRowsSql(where: string, refusals: boolean, tail = ''): string {
  const graceMs = Math.trunc(unloggedGraceMs());
  return `SELECT r.id::text AS id, l."index"::text AS "logIndex",
    r."hostId"::text AS "hostId", r."hostFailure", r.record, r."chainHash", r."prevHash",
    to_char(r."receivedAt", ${ISO}) AS "receivedAt", r."agentId", r."ticketId"::text AS "ticketId",
    ${COPIED_COLUMNS},
    encode(n.hash, 'hex') AS "leafHash", l.kind AS "leafKind", l."refId" AS "leafRef",
    r."receivedAt" < now() - interval '${graceMs} milliseconds' AS "pastGrace",
    ${refusals ? 'rf.reason' : 'NULL::text'} AS refusal
  FROM "InterceptionRecord" r
  LEFT JOIN "LogLeaf" l ON l.kind = 'record' AND l."refId" = r.id::text
  LEFT JOIN "LogNode" n ON n.level = 0 AND n."index" = l."index"
  ${refusals ? `LEFT JOIN "LogRefusal" rf ON rf.kind = 'record' AND rf."refId" = r.id::text` : ''}
  WHERE ${where} ${tail}`;
}

/** How a row names itself in a finding's sentence. */
export function nameOf(row: { id: string; sequence: number; sessionId: string }): string {
  return row.sequence < 0 ? `Record ${row.id}` : `Record ${row.id} (sequence ${row.sequence})`;
}

function show(v: unknown): string {
  return v === null || v === undefined ? 'nothing' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** "the decision column says allow, the record says deny" */
export function describeMismatches(mismatches: readonly ColumnMismatch[]): string {
  return mismatches
    .map((m) =>
      m.field === 'record'
        ? 'the stored record is not a readable record'
        : `the ${m.field} column says ${show(m.column)}, the record says ${show(m.record)}`,
    )
    .join('; ');
}

export type RowVerdict =
  /** In the log at `index`, leaf hash `leafHash` (hex): ready for an inclusion proof. */
  | { kind: 'logged'; index: number; leafHash: Uint8Array }
  | { kind: 'finding'; finding: IntegrityFinding };

/**
 * One row against its leaf: altered (naming the columns), forged (not logged
 * past the grace, refused, or naming another row's leaf), not_logged, or
 * logged. A row stored under another id whose content is exactly the leaf
 * of another record was moved, not changed: out_of_order. A record's leaf is
 * found by its id (LogLeaf "refId"), so a moved row meets the leaf of the id
 * it now has; `leaves` (leaf hash hex → the record it logs, from the other
 * rows read with it) tells where its content is logged.
 */
export function judgeRow(
  row: IntegrityRow,
  leaves: ReadonlyMap<string, { index: string; refId: string }> = new Map(),
): RowVerdict {
  const at = {
    recordId: row.id,
    hostId: row.hostId,
    sessionId: row.sessionId,
    sequence: row.sequence,
  };
  const name = nameOf(row);
  const leafHash = row.leafHash === null ? null : hashFromHex(row.leafHash);
  const check: LeafCheck = checkLeafRow(row, row, {
    hash: leafHash,
    kind: row.leafKind,
    refId: row.leafRef,
  });
  const index = row.logIndex === null ? null : Number(row.logIndex);
  const f = (problem: IntegrityFinding['problem'], detail: string) =>
    ({
      kind: 'finding',
      finding: finding(problem, 'record', detail, { ...at, leafIndex: index }),
    }) as const;
  switch (check.status) {
    case 'ok':
      return { kind: 'logged', index: check.index, leafHash: leafHash as Uint8Array };
    case 'altered': {
      const columns = check.mismatches ?? [];
      const home = columns.length === 0 ? leaves.get(leafHashHex(row) ?? '') : undefined;
      if (home && home.refId !== row.id) {
        return {
          kind: 'finding',
          finding: finding(
            'out_of_order',
            'record',
            `${name} was moved: it is stored under id ${row.id} but logged at leaf ${home.index} as record ${home.refId}.`,
            { ...at, leafIndex: Number(home.index) },
          ),
        };
      }
      return f(
        'altered',
        columns.length > 0
          ? `${name} altered: ${describeMismatches(columns)}.`
          : `${name} altered: its stored data no longer hashes to its leaf ${index} in the log.`,
      );
    }
    case 'leaf_missing':
      if (
        row.leafKind === 'record' &&
        row.leafRef !== null &&
        leafHash &&
        hashesAs(row, leafHash)
      ) {
        return f(
          'out_of_order',
          `${name} was moved: it is stored under id ${row.id} but logged at leaf ${index} as record ${row.leafRef}.`,
        );
      }
      return f(
        'forged',
        row.leafRef === null
          ? `${name} names leaf ${index}, which the log does not hold.`
          : `${name} names leaf ${index}, which the log holds for ${row.leafKind} ${row.leafRef}.`,
      );
    case 'not_logged':
      if (row.refusal !== null)
        return f('forged', `${name} was refused by the log: ${row.refusal}.`);
      if (row.pastGrace) {
        return f(
          'forged',
          `${name} is not in the log although it was received at ${row.receivedAt}: it did not come through ingest.`,
        );
      }
      return f('not_logged', `${name} is not in the log yet (received at ${row.receivedAt}).`);
    case 'record_missing':
      return f('missing', `${name} is missing.`);
  }
}

/** The leaf hash (hex) the row's content gives, null when it has none. */
function leafHashHex(row: IntegrityRow): string | null {
  try {
    return toHex(recordLeafHash(row));
  } catch {
    return null;
  }
}

/** Leaf hash (hex) → the record it logs, for the logged rows among `rows` (see judgeRow). */
export function leavesOf(
  rows: readonly IntegrityRow[],
): Map<string, { index: string; refId: string }> {
  const out = new Map<string, { index: string; refId: string }>();
  for (const r of rows) {
    if (r.leafHash !== null && r.logIndex !== null)
      out.set(r.leafHash, { index: r.logIndex, refId: r.id });
  }
  return out;
}

function hashesAs(row: IntegrityRow, leaf: Uint8Array): boolean {
  try {
    return sameHash(recordLeafHash(row), leaf);
  } catch {
    return false;
  }
}
