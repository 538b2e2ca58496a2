import 'server-only';
import type { Role } from '@/lib/generated/prisma/enums';
import { AREAS, hasAnyRole } from '@/lib/server/auth/roles';
import { forbidden } from '@/lib/server/http/api-error';

/** Who is reading the audit store. */
export type AuditActor = { id: string; roles: readonly Role[] };

/**
 * Every audit read checks the reader itself (pages and routes check too,
 * but this is the last line): auditors and admins only. A reviewer without
 * the auditor role is refused, 403 `forbidden`.
 */
export function assertAuditor(actor: AuditActor | null | undefined): void {
  if (!actor || !hasAnyRole(actor.roles, AREAS.audit.roles)) {
    throw forbidden('Searching the audit store needs the auditor role.');
  }
}
