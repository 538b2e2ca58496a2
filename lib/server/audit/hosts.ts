import 'server-only';
import { db } from '@/lib/server/db';
import { type AuditActor, assertAuditor } from './access';

/** Hosts for the search form's host filter (archived ones too: their records remain). */
export async function listAuditHosts(actor: AuditActor): Promise<{ id: string; name: string }[]> {
  assertAuditor(actor);
  const prisma = await db();
  return prisma.host.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
}
