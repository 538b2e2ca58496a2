import 'server-only';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import { recordColumns } from './validate-record';

/**
 * The one column list of an `InterceptionRecord` row as written by SQL: the
 * ingest's insert and the seed/benchmark rows (`bulk-rows.ts`) both build
 * their statements from it, so they cannot drift apart. Every column of the
 * Prisma model except the serial `id`, `hostId` (bound once per
 * statement) and `logIndex` (NULL until the transparency-log appender
 * sets it; binding it here would only add an always-NULL parameter per
 * row), in schema order, with the cast its parameter needs;
 * `tests/unit/records-columns.test.ts` compares it with prisma/schema.prisma.
 */
export const RECORD_COLUMNS = [
  ['sessionId', 'text'],
  ['sequence', 'int'],
  ['interceptionPoint', 'text'],
  ['mode', 'text'],
  ['decision', 'text'],
  ['reason', 'text'],
  ['resolvedBy', 'text'],
  ['foldTruncated', 'boolean'],
  ['decidedBy', 'int'],
  ['hostError', 'boolean'],
  ['identityProvider', 'text'],
  ['inputIdentity', 'text'],
  ['enforcedIdentity', 'text'],
  ['agentId', 'text'],
  ['timestamp', 'timestamp(3)'],
  ['record', 'jsonb'],
  ['chainHash', 'text'],
  ['prevHash', 'text'],
  ['ticketId', 'uuid'],
  ['receivedAt', 'timestamp(3)'],
  ['contentHash', 'text'],
  ['hostFailure', 'boolean'],
  ['dedupeKey', 'text'],
] as const;

export type RecordColumn = (typeof RECORD_COLUMNS)[number][0];

/** The stored values of one record, one per column of RECORD_COLUMNS. */
export type RecordRow = Omit<ReturnType<typeof recordColumns>, 'timestamp'> & {
  timestamp: string | null;
  sessionId: string;
  sequence: number;
  agentId: string | null;
  record: string;
  chainHash: string;
  prevHash: string | null;
  ticketId: string | null;
  /** null: the time of the storing transaction, as the column default would set it. */
  receivedAt: string | null;
  contentHash: string;
  hostFailure: boolean;
  dedupeKey: string;
};

/** What a row holds beyond the columns derived from the record itself. */
export type RowFields = Omit<RecordRow, keyof ReturnType<typeof recordColumns>>;

/** One row shape for every writer: derived columns from the record, the rest as given. */
export function recordRow(record: InterceptionRecord, fields: RowFields): RecordRow {
  const derived = recordColumns(record);
  // ISO strings, not Date objects: the driver would render a Date in the
  // process's local zone, and the column has none.
  return { ...derived, ...fields, timestamp: derived.timestamp?.toISOString() ?? null };
}

const NAMES = RECORD_COLUMNS.map(([n]) => `"${n}"`).join(', ');

/** The row value of a column in a SELECT over `u`; an absent receivedAt is now(). */
function selected(name: RecordColumn): string {
  return name === 'receivedAt' ? `COALESCE(u."receivedAt", now())` : `u."${name}"`;
}

/**
 * `INSERT … SELECT FROM unnest(…)` of `rows` for host `$1`: one array
 * parameter per column whatever the row count, ids assigned in `rows` order
 * (chain verification walks stored order). `tail` is appended to the INSERT
 * (e.g. `ON CONFLICT DO NOTHING RETURNING …`).
 */
export function unnestInsert(
  hostId: string,
  rows: RecordRow[],
  tail = '',
): { sql: string; params: unknown[] } {
  const arrays = RECORD_COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ');
  const values = RECORD_COLUMNS.map(([name]) => selected(name)).join(', ');
  return {
    sql: `INSERT INTO "InterceptionRecord" ("hostId", ${NAMES})
       SELECT $1::uuid, ${values}
       FROM unnest(${arrays}) WITH ORDINALITY AS u(${NAMES}, ord)
       ORDER BY u.ord
       ${tail}`,
    params: [hostId, ...RECORD_COLUMNS.map(([name]) => rows.map((r) => r[name]))],
  };
}

/**
 * One multi-row `INSERT … VALUES` of `rows` for host `$1`, parameters bound.
 * A statement holds at most 65,535 parameters, i.e. 2,800 rows.
 */
export function multiRowInsert(
  hostId: string,
  rows: RecordRow[],
): { sql: string; params: unknown[] } {
  const params: unknown[] = [hostId];
  const tuples = rows.map((row) => {
    const cells = RECORD_COLUMNS.map(([name, type]) => {
      params.push(row[name]);
      const cell = `$${params.length}::${type}`;
      return name === 'receivedAt' ? `COALESCE(${cell}, now())` : cell;
    });
    return `($1::uuid, ${cells.join(', ')})`;
  });
  return {
    sql: `INSERT INTO "InterceptionRecord" ("hostId", ${NAMES}) VALUES ${tuples.join(', ')}`,
    params,
  };
}
