import 'server-only';
import { auditDb } from '@/lib/server/db/audit-db';
import { type AuditActor, assertAuditor } from './access';

/** Hosts for the search form's host filter (archived ones too: their records remain). */
export async function listAuditHosts(actor: AuditActor): Promise<{ id: string; name: string }[]> {
  assertAuditor(actor);
  const prisma = await auditDb();
  return prisma.host.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
}
