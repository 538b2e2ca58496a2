import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import type { Role } from '@/lib/generated/prisma/enums';

/**
 * Shared by the user services: who acts, the record as handed out (no
 * hash, no SSO subject), and the audit of changes to users.
 */

/** Who is acting: loaded fresh from the database for this request. */
export type Actor = { id: string; roles: readonly Role[] };

export type UserSummary = {
  id: string;
  email: string;
  name: string | null;
  roles: Role[];
  disabled: boolean;
  hasPassword: boolean;
  ssoLinked: boolean;
  slackUserId: string | null;
  lastSignInAt: Date | null;
  createdAt: Date;
};

export const summarySelect = {
  id: true,
  email: true,
  name: true,
  roles: true,
  disabled: true,
  passwordHash: true,
  oidcSubject: true,
  slackUserId: true,
  lastSignInAt: true,
  createdAt: true,
} as const;

export type UserRow = Prisma.UserGetPayload<{ select: typeof summarySelect }>;

export function toSummary({ passwordHash, oidcSubject, ...u }: UserRow): UserSummary {
  return { ...u, hasPassword: Boolean(passwordHash), ssoLinked: Boolean(oidcSubject) };
}

export type Tx = Prisma.TransactionClient;

/** Records a change to a user made by `actor` (payload-free: no secrets). */
export async function auditUserChange(
  tx: Tx,
  actor: Actor,
  action: string,
  targetId: string,
  details: Prisma.InputJsonObject = {},
): Promise<void> {
  await tx.auditEvent.create({
    data: { actorId: actor.id, actorKind: 'user', action, targetType: 'user', targetId, details },
  });
}
