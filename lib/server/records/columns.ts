import 'server-only';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import { recordLeafHashHex } from './leaf-hash';
import { recordSealV2, type SealKey, sealKey } from './seal';
import { recordColumns } from './validate-record';

/**
 * The one column list of an `InterceptionRecord` row as written by SQL: the
 * ingest's insert and the seed/benchmark rows (`bulk-rows.ts`) both build
 * their statements from it, so they cannot drift apart. Every column of the
 * Prisma model except the serial `id` and `hostId` (bound once per
 * statement), in schema order, with the cast its parameter needs;
 * `tests/unit/records-columns.test.ts` compares it with prisma/schema.prisma.
 * `leafHash` and `seal` are not fields of a RecordRow: the statement
 * builders compute them from the host and the row (the row's
 * transparency-log leaf hash, leaf-hash.ts, and the v2 seal over it,
 * seal.ts), so no writer can store a row unsealed or with a leaf hash that
 * is not its own.
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
  ['seal', 'text'],
  ['leafHash', 'text'],
] as const;

export type RecordColumn = (typeof RECORD_COLUMNS)[number][0];

/** The stored values of one record, one per column of RECORD_COLUMNS but the seal and the leaf hash. */
export type RecordRow = Omit<ReturnType<typeof recordColumns>, 'timestamp'> & {
  timestamp: string | null;
  sessionId: string;
  sequence: number;
  agentId: string | null;
  /** The record's RFC 8785 canonical JSON (its leaf hash is computed over this text). */
  record: string;
  chainHash: string;
  prevHash: string | null;
  ticketId: string | null;
  /** ISO 8601 with milliseconds (sealed as written: ingest reads the transaction's now() first). */
  receivedAt: string;
  contentHash: string;
  hostFailure: boolean;
  dedupeKey: string;
};

/** What a row holds beyond the columns derived from the record itself. */
export type RowFields = Omit<RecordRow, keyof ReturnType<typeof recordColumns>>;

/**
 * One row shape for every writer: derived columns from the record, the rest
 * as given. Written out member by member in column order rather than
 * spread: one object shape for every row, and no per-row copying of two
 * objects' properties (it showed in the ingest's profile).
 */
export function recordRow(record: InterceptionRecord, fields: RowFields): RecordRow {
  const d = recordColumns(record);
  return {
    sessionId: fields.sessionId,
    sequence: fields.sequence,
    interceptionPoint: d.interceptionPoint,
    mode: d.mode,
    decision: d.decision,
    reason: d.reason,
    resolvedBy: d.resolvedBy,
    foldTruncated: d.foldTruncated,
    decidedBy: d.decidedBy,
    hostError: d.hostError,
    identityProvider: d.identityProvider,
    inputIdentity: d.inputIdentity,
    enforcedIdentity: d.enforcedIdentity,
    agentId: fields.agentId,
    // ISO strings, not Date objects: the driver would render a Date in the
    // process's local zone, and the column has none.
    timestamp: d.timestamp?.toISOString() ?? null,
    record: fields.record,
    chainHash: fields.chainHash,
    prevHash: fields.prevHash,
    ticketId: fields.ticketId,
    receivedAt: fields.receivedAt,
    contentHash: fields.contentHash,
    hostFailure: fields.hostFailure,
    dedupeKey: fields.dedupeKey,
  };
}

const NAMES = RECORD_COLUMNS.map(([n]) => `"${n}"`).join(', ');

/** The columns computed from the whole row: its leaf hash and the seal over it. */
type Sealed = { leafHash: string; seal: string };

function sealed(hostId: string, row: RecordRow, key: SealKey): Sealed {
  const leafHash = recordLeafHashHex(
    {
      // As the row reads back as text (uuid columns render lowercase).
      hostId: hostId.toLowerCase(),
      sessionId: row.sessionId,
      sequence: row.sequence,
      record: null,
      chainHash: row.chainHash,
      prevHash: row.prevHash,
      receivedAt: receivedIso(row),
      agentId: row.agentId,
      ticketId: row.ticketId?.toLowerCase() ?? null,
    },
    row.record,
  );
  return { leafHash, seal: recordSealV2(leafHash, key) };
}

/**
 * The value bound for `name`: the row's, with receivedAt in the exact form
 * hashed (whole milliseconds, so the timestamp(3) column stores what the
 * leaf hash covers), and the leaf hash and seal computed once per row.
 */
function cell(row: RecordRow, name: RecordColumn, s: Sealed): unknown {
  if (name === 'seal') return s.seal;
  if (name === 'leafHash') return s.leafHash;
  if (name === 'receivedAt') return receivedIso(row);
  return row[name];
}

/** The last receivedAt normalised: a batch's rows share one (the transaction's time). */
let received = { raw: '', iso: '' };

function receivedIso(row: RecordRow): string {
  if (row.receivedAt !== received.raw) {
    received = { raw: row.receivedAt, iso: new Date(row.receivedAt).toISOString() };
  }
  return received.iso;
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
  key: SealKey = sealKey(),
): { sql: string; params: unknown[] } {
  const seals = rows.map((r) => sealed(hostId, r, key));
  const arrays = RECORD_COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ');
  const values = RECORD_COLUMNS.map(([name]) => `u."${name}"`).join(', ');
  return {
    sql: `INSERT INTO "InterceptionRecord" ("hostId", ${NAMES})
       SELECT $1::uuid, ${values}
       FROM unnest(${arrays}) WITH ORDINALITY AS u(${NAMES}, ord)
       ORDER BY u.ord
       ${tail}`,
    params: [
      hostId,
      ...RECORD_COLUMNS.map(([name]) => rows.map((r, k) => cell(r, name, seals[k]))),
    ],
  };
}

/**
 * One multi-row `INSERT … VALUES` of `rows` for host `$1`, parameters bound.
 * A statement holds at most 65,535 parameters, i.e. 2,600 rows.
 */
export function multiRowInsert(
  hostId: string,
  rows: RecordRow[],
  key: SealKey = sealKey(),
): { sql: string; params: unknown[] } {
  const params: unknown[] = [hostId];
  const tuples = rows.map((row) => {
    const s = sealed(hostId, row, key);
    const cells = RECORD_COLUMNS.map(([name, type]) => {
      params.push(cell(row, name, s));
      return `$${params.length}::${type}`;
    });
    return `($1::uuid, ${cells.join(', ')})`;
  });
  return {
    sql: `INSERT INTO "InterceptionRecord" ("hostId", ${NAMES}) VALUES ${tuples.join(', ')}`,
    params,
  };
}

/** The COPY of rows for InterceptionRecord; `copyChunks` makes its data. */
export const COPY_RECORDS_SQL = `COPY "InterceptionRecord" ("hostId", ${NAMES}) FROM STDIN`;

/** Rows per chunk handed to the connection: big enough to amortise a write, small enough to overlap. */
const ROWS_PER_CHUNK = 200;

/**
 * The data of COPY_RECORDS_SQL for `rows` of host `hostId` (text format, one
 * line per row, in `rows` order, so ids follow it as with `unnestInsert`),
 * with the same leaf hash, seal and receivedAt as the INSERTs bind. Lazy: a
 * chunk is built when the connection asks for it, while the server stores
 * the ones before.
 */
export function* copyChunks(
  hostId: string,
  rows: RecordRow[],
  key: SealKey = sealKey(),
): Generator<string> {
  const host = `${copyText(hostId)}\t`;
  let chunk = '';
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k];
    const s = sealed(hostId, row, key);
    let line = host;
    for (let c = 0; c < RECORD_COLUMNS.length; c++) {
      const v = cell(row, RECORD_COLUMNS[c][0], s);
      line += c === 0 ? copyValue(v) : `\t${copyValue(v)}`;
    }
    chunk += `${line}\n`;
    if ((k + 1) % ROWS_PER_CHUNK === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/** One value in COPY's text format: `\N` for NULL, t/f, numbers as written, text escaped. */
function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return copyText(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw new TypeError(`no COPY text for a ${typeof v}`);
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/**
 * Text as COPY reads it back byte for byte: the backslash, and the tab,
 * newline and carriage return that would end a value or a line, escaped.
 * (U+0000, which COPY cannot carry either, is refused before: nul_character.)
 */
export function copyText(v: string): string {
  return COPY_SPECIAL.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : v;
}
