import 'server-only';
import { auditDb } from '@/lib/server/db/audit-db';
import { type AuditActor, assertAuditor } from './access';
import { type AuditRow, ROW_COLUMNS } from './rows';

export type RecordDetail = AuditRow & {
  /** The stored §10.3 record, as received. */
  record: unknown;
  prevHash: string | null;
  ticketId: string | null;
};

/** One record by its id, or null (also for an id that is not a number). */
export async function getRecordDetail(actor: AuditActor, id: string): Promise<RecordDetail | null> {
  assertAuditor(actor);
  if (!/^\d{1,18}$/.test(id)) return null;
  const prisma = await auditDb();
  const [row] = await prisma.$queryRaw<RecordDetail[]>`
    SELECT ${ROW_COLUMNS}, r.record, r."prevHash",
      coalesce(r."ticketId", t.id)::text AS "ticketId"
    FROM "InterceptionRecord" r
    JOIN "Host" h ON h.id = r."hostId"
    LEFT JOIN "ApprovalTicket" t ON r."ticketId" IS NULL AND r."resolvedBy" IS NOT NULL
      AND t."hostId" = r."hostId" AND t."sessionId" = r."sessionId" AND t.sequence = r.sequence
    WHERE r.id = ${id}::bigint
    LIMIT 1`;
  return row ?? null;
}
