import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { auditDb } from '@/lib/server/db/audit-db';
import { moduleLogger } from '@/lib/server/logger';
import { type AuditActor, assertAuditor } from './access';
import { csvLine } from './csv';
import type { AuditFilters } from './filters';
import { type AuditRow, ROW_COLUMNS } from './rows';
import { type ResultCount, countRows } from './search';
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

type ExportRow = AuditRow & { record: unknown; prevHash: string | null };

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

/**
 * A JSONL line: the stored §10.3 record with where and when it was
 * received and its chain hashes beside it (session ids are per host, so
 * the record alone does not say whose session it is).
 */
function jsonlLine(r: ExportRow): string {
  return `${JSON.stringify({
    id: r.id,
    host_id: r.hostId,
    host: r.hostName,
    received_at: r.receivedAt,
    chain_hash: r.chainHash,
    prev_hash: r.prevHash,
    record: r.record,
  })}\n`;
}

type Position = { receivedAt: string; id: string } | { sequence: number } | null;

async function fetchChunk(scope: ExportScope, position: Position): Promise<ExportRow[]> {
  const prisma = await auditDb();
  if (scope.kind === 'session') {
    const after = position && 'sequence' in position ? position.sequence : -1;
    return prisma.$queryRaw<ExportRow[]>`
      SELECT ${ROW_COLUMNS}, r.record, r."prevHash"
      FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
      WHERE r."hostId" = ${scope.hostId}::uuid AND r."sessionId" = ${scope.sessionId}
        AND r."hostFailure" = false AND r.sequence > ${after}
      ORDER BY r.sequence ASC LIMIT ${EXPORT_CHUNK}`;
  }
  const after =
    position && 'id' in position
      ? Prisma.sql`AND (r."receivedAt", r.id) > (${utcTimestamp(new Date(position.receivedAt))}, ${position.id}::bigint)`
      : Prisma.empty;
  return prisma.$queryRaw<ExportRow[]>`
    SELECT ${ROW_COLUMNS}, r.record, r."prevHash"
    FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
    WHERE ${await whereFor(scope.filters)} ${after}
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
 * one keyset chunk per pull: the next chunk is read only when the client
 * has taken the previous one, so a slow download holds one chunk at most.
 */
export async function exportRecords(
  actor: AuditActor,
  scope: ExportScope,
  format: ExportFormat,
): Promise<ExportStream> {
  assertAuditor(actor);
  const filters = scopeFilters(scope);
  const count: ResultCount = await countRows(filters, EXPORT_COUNT_CAP);
  const encoder = new TextEncoder();
  let position: Position = null;
  let headerSent = format !== 'csv';
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine(CSV_COLUMNS.map(([name]) => name))));
        return;
      }
      if (done) return;
      try {
        const rows = await fetchChunk(scope, position);
        // The client went away while the chunk was read: stop here.
        if (done) return;
        const last = rows.at(-1);
        if (last) {
          position = nextPosition(scope, last);
          const text = rows
            .map((r) =>
              format === 'csv' ? csvLine(CSV_COLUMNS.map(([, get]) => get(r))) : jsonlLine(r),
            )
            .join('');
          controller.enqueue(encoder.encode(text));
        }
        if (rows.length < EXPORT_CHUNK) {
          done = true;
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
  return {
    body,
    contentType:
      format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    filename: exportFilename(scope, format),
    total: count.capped ? null : count.value,
  };
}

function exportFilename(scope: ExportScope, format: ExportFormat): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'session';
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return scope.kind === 'session'
    ? `session-${safe(scope.sessionId)}.${format}`
    : `audit-${stamp}.${format}`;
}
