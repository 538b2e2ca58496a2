import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import { Role } from '@/lib/generated/prisma/enums';
import { forbidden, notFound } from '@/lib/server/http/api-error';
import { isUuid } from '@/lib/server/http/uuid';

/**
 * Who changes hosts and keys: an admin's user id, checked against the
 * database in the same transaction as the change (a stale session or a
 * hidden button is not a permission), or null for the app itself (boot,
 * scripts), which is audited as `system`.
 */
export type HostActorId = string | null;

export type Tx = Prisma.TransactionClient;

export async function requireHostAdmin(tx: Tx, actorId: HostActorId): Promise<void> {
  if (actorId === null) return;
  const ok = isUuid(actorId);
  const user = ok
    ? await tx.user.findUnique({ where: { id: actorId }, select: { roles: true, disabled: true } })
    : null;
  if (!user || user.disabled || !user.roles.includes(Role.admin)) {
    throw forbidden('Only admins can manage hosts and API keys.');
  }
}

/** One AuditEvent per change, targeted at the host; details never hold a key. */
export async function auditHost(
  tx: Tx,
  actorId: HostActorId,
  action: string,
  hostId: string,
  details: Prisma.InputJsonObject = {},
): Promise<void> {
  await tx.auditEvent.create({
    data: {
      actorId,
      actorKind: actorId ? 'user' : 'system',
      action,
      targetType: 'host',
      targetId: hostId,
      details,
    },
  });
}

// Re-exported for the host and webhook services that import it from here.
export { isUuid };

/** Locks the host row for the change; unknown or malformed ids are 404. */
export async function lockHost(tx: Tx, hostId: string) {
  const host = isUuid(hostId) ? await tx.host.findUnique({ where: { id: hostId } }) : null;
  if (!host) throw notFound('The host');
  await tx.$queryRaw`SELECT id FROM "Host" WHERE id = ${hostId}::uuid FOR UPDATE`;
  return host;
}
