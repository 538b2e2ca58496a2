import 'server-only';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '@/lib/server/db';
import { auditDb } from '@/lib/server/db/audit-db';
import { endLine } from '@/lib/verify/export-format';
import { moduleLogger } from '@/lib/server/logger';
import { type AuditActor, assertAuditor } from './access';
import { csvLine } from './csv';
import type { AuditFilters } from './filters';
import { type AuditRow, ROW_COLUMNS } from './rows';
import { type ResultCount, countRows } from './search';
import {
  exportHeaderLine,
  recordLines,
  rowBound,
  SIGNED_ROW_COLUMNS,
  type SignedExportStart,
  type SignedRow,
  startSignedExport,
} from './signed-export';
import { utcTimestamp, whereFor } from './where';

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows fetched per query: memory stays bounded whatever the export's size. */
export const EXPORT_CHUNK = 1000;
/** Past this the total is not counted (the progress shows rows without a percentage). */
const EXPORT_COUNT_CAP = 1_000_000;

export type ExportScope =
  | { kind: 'query'; filters: AuditFilters }
  | { kind: 'session'; hostId: string; sessionId: string };

type ExportRow = SignedRow;

/** CSV columns: the indexed fields and identities; the whole record is in JSONL. */
export const CSV_COLUMNS = [
  ['id', (r: AuditRow) => r.id],
  ['received_at', (r: AuditRow) => r.receivedAt],
  ['host', (r: AuditRow) => r.hostName],
  ['host_id', (r: AuditRow) => r.hostId],
  ['session_id', (r: AuditRow) => r.sessionId],
  ['sequence', (r: AuditRow) => r.sequence],
  ['timestamp', (r: AuditRow) => r.timestamp],
  ['interception_point', (r: AuditRow) => r.interceptionPoint],
  ['mode', (r: AuditRow) => r.mode],
  ['decision', (r: AuditRow) => r.decision],
  ['reason', (r: AuditRow) => r.reason],
  ['decided_by', (r: AuditRow) => r.decidedBy],
  ['resolved_by', (r: AuditRow) => r.resolvedBy],
  ['fold_truncated', (r: AuditRow) => r.foldTruncated],
  ['host_error', (r: AuditRow) => r.hostError],
  ['host_failure', (r: AuditRow) => r.hostFailure],
  ['agent_id', (r: AuditRow) => r.agentId],
  ['identity_provider', (r: AuditRow) => r.identityProvider],
  ['input_identity', (r: AuditRow) => r.inputIdentity],
  ['enforced_identity', (r: AuditRow) => r.enforcedIdentity],
  ['chain_hash', (r: AuditRow) => r.chainHash],
] as const;

type Position = { receivedAt: string; id: string } | { sequence: number } | null;

/**
 * CSV reads the audit store (the replica when there is one); JSONL reads the
 * primary, bounded by the export's signed tree head (signed-export.ts).
 */
async function fetchChunk(
  scope: ExportScope,
  position: Position,
  signed: SignedExportStart | null,
): Promise<ExportRow[]> {
  const prisma: PrismaClient = signed ? await db() : await auditDb();
  const bound = signed
    ? rowBound(signed, scope.kind === 'session' ? scope : undefined)
    : Prisma.empty;
  if (scope.kind === 'session') {
    const after = position && 'sequence' in position ? position.sequence : -1;
    return prisma.$queryRaw<ExportRow[]>`
      SELECT ${ROW_COLUMNS}, ${SIGNED_ROW_COLUMNS}
      FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
      WHERE r."hostId" = ${scope.hostId}::uuid AND r."sessionId" = ${scope.sessionId}
        AND r."hostFailure" = false AND r.sequence > ${after} ${bound}
      ORDER BY r.sequence ASC LIMIT ${EXPORT_CHUNK}`;
  }
  const after =
    position && 'id' in position
      ? Prisma.sql`AND (r."receivedAt", r.id) > (${utcTimestamp(new Date(position.receivedAt))}, ${position.id}::bigint)`
      : Prisma.empty;
  return prisma.$queryRaw<ExportRow[]>`
    SELECT ${ROW_COLUMNS}, ${SIGNED_ROW_COLUMNS}
    FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
    WHERE ${await whereFor(scope.filters)} ${after} ${bound}
    ORDER BY r."receivedAt" ASC, r.id ASC LIMIT ${EXPORT_CHUNK}`;
}

function nextPosition(scope: ExportScope, last: ExportRow): Position {
  return scope.kind === 'session'
    ? { sequence: last.sequence }
    : { receivedAt: last.receivedAt, id: last.id };
}

export function scopeFilters(scope: ExportScope): AuditFilters {
  return scope.kind === 'query'
    ? scope.filters
    : { hostId: scope.hostId, sessionId: scope.sessionId };
}

export type ExportStream = {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
  /** Rows the export will hold (null when there are too many to count cheaply). */
  total: number | null;
};

const log = moduleLogger('audit-export');

/**
 * Streams the scope's records oldest first (a session in sequence order),
 * one keyset chunk per pull, so a slow download holds one chunk at most.
 * JSONL is the signed format of lib/verify/export-format.ts (a header with
 * a fresh signed tree head, each line with its inclusion proof, an end
 * line); `consistencyFrom` adds the consistency proof from that size.
 */
export async function exportRecords(
  actor: AuditActor,
  scope: ExportScope,
  format: ExportFormat,
  opts: { consistencyFrom?: number } = {},
): Promise<ExportStream> {
  assertAuditor(actor);
  const filters = scopeFilters(scope);
  const count: ResultCount = await countRows(filters, EXPORT_COUNT_CAP);
  const signed =
    format === 'jsonl'
      ? await startSignedExport(await db(), {
          sessions: scope.kind === 'session' ? [scope] : [],
          consistencyFrom: opts.consistencyFrom,
        })
      : null;
  const header = signed
    ? await exportHeaderLine(
        signed,
        'export',
        scope.kind === 'session'
          ? { kind: 'session', host_id: scope.hostId, session_id: scope.sessionId }
          : { kind: 'query', filters: { ...scope.filters } },
      )
    : csvLine(CSV_COLUMNS.map(([name]) => name));
  return {
    body: rowStream(
      header,
      async (position) => {
        const rows = await fetchChunk(scope, position, signed);
        const text = signed
          ? await recordLines(await db(), rows, signed.head.size)
          : rows.map((r) => csvLine(CSV_COLUMNS.map(([, get]) => get(r)))).join('');
        return { rows, text };
      },
      scope,
      signed ? (records) => endLine({ kind: 'end', records, decisions: 0 }) : null,
    ),
    contentType:
      format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    filename: exportFilename(scope, format),
    total: count.capped ? null : count.value,
  };
}

/**
 * The header, then one keyset chunk per pull (the next chunk is read only
 * when the client has taken the previous one), then the trailer if any.
 */
function rowStream(
  header: string,
  chunk: (position: Position) => Promise<{ rows: ExportRow[]; text: string }>,
  scope: ExportScope,
  trailer: ((rows: number) => string) | null,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let position: Position = null;
  let headerSent = false;
  let done = false;
  let exported = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(header));
        return;
      }
      if (done) return;
      try {
        const { rows, text } = await chunk(position);
        // The client went away while the chunk was read: stop here.
        if (done) return;
        const last = rows.at(-1);
        exported += rows.length;
        if (last) {
          position = nextPosition(scope, last);
          controller.enqueue(encoder.encode(text));
        }
        if (rows.length < EXPORT_CHUNK) {
          done = true;
          if (trailer) controller.enqueue(encoder.encode(trailer(exported)));
          controller.close();
        }
      } catch (err) {
        if (done) return;
        log.error({ err }, 'audit export failed mid-stream');
        done = true;
        controller.error(err);
      }
    },
    cancel() {
      done = true;
    },
  });
}

function exportFilename(scope: ExportScope, format: ExportFormat): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'session';
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return scope.kind === 'session'
    ? `session-${safe(scope.sessionId)}.${format}`
    : `audit-${stamp}.${format}`;
}
