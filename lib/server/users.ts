import 'server-only';
import { Role } from '@/lib/generated/prisma/enums';
import { hashPassword } from '@/lib/server/auth/password';
import {
  checkEmail,
  checkName,
  checkPassword,
  checkRoles,
  type FieldErrors,
  validationError,
} from '@/lib/server/auth/user-input';
import {
  type Actor,
  auditUserChange,
  summarySelect,
  toSummary,
  type Tx,
  type UserRow,
  type UserSummary,
} from '@/lib/server/auth/user-records';
import { endUserSessions } from '@/lib/server/auth/user-sessions';
import { db } from '@/lib/server/db';
import { AppError, forbidden, notFound } from '@/lib/server/http/api-error';
import { isUuid } from '@/lib/server/http/uuid';

export type { Actor, FieldErrors, UserSummary };
export { changeOwnPassword, endOwnSessions, getOwnProfile } from '@/lib/server/auth/own-account';

/**
 * User services. Every function takes the acting user and checks its role
 * itself: pages and actions check too, but this is the last line. Every
 * change writes an AuditEvent (no secrets) in the same transaction.
 */

function requireAdmin(actor: Actor): void {
  if (!actor.roles.includes(Role.admin)) throw forbidden('Only admins can manage users.');
}

/**
 * Locks the enabled admins' rows and checks the actor is still one of them,
 * so that two admins demoting each other at once cannot leave none (the
 * second transaction waits, then sees the first one's change).
 */
async function lockAdmins(tx: Tx, actor: Actor): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM "User"
    WHERE 'admin'::"Role" = ANY(roles) AND NOT disabled
    FOR UPDATE`;
  const ids = rows.map((r) => r.id);
  if (!ids.includes(actor.id)) throw forbidden('Only admins can manage users.');
  return ids;
}

async function findTarget(tx: Tx, userId: string): Promise<UserRow> {
  const ok = isUuid(userId);
  const user = ok
    ? await tx.user.findUnique({ where: { id: userId }, select: summarySelect })
    : null;
  if (!user) throw notFound('The user');
  return user;
}

/** All users, by email. Admin only. */
export async function listUsers(actor: Actor): Promise<UserSummary[]> {
  requireAdmin(actor);
  const prisma = await db();
  const rows = await prisma.user.findMany({ select: summarySelect, orderBy: { email: 'asc' } });
  return rows.map(toSummary);
}

/** One user. Admin only. */
export async function getUser(actor: Actor, userId: string): Promise<UserSummary> {
  requireAdmin(actor);
  const prisma = await db();
  return toSummary(await findTarget(prisma, userId));
}

export type UserEvent = {
  id: string;
  action: string;
  actorEmail: string | null;
  actorKind: string;
  createdAt: Date;
};

/** The latest changes made to a user (from AuditEvent). Admin only. */
export async function listUserEvents(
  actor: Actor,
  userId: string,
  take = 20,
): Promise<UserEvent[]> {
  requireAdmin(actor);
  const prisma = await db();
  const rows = await prisma.auditEvent.findMany({
    where: { targetType: 'user', targetId: userId },
    orderBy: { createdAt: 'desc' },
    take,
    select: {
      id: true,
      action: true,
      actorKind: true,
      createdAt: true,
      actor: { select: { email: true } },
    },
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    action: r.action,
    actorKind: r.actorKind,
    actorEmail: r.actor?.email ?? null,
    createdAt: r.createdAt,
  }));
}

export type CreateUserInput = { email: unknown; name?: unknown; roles: unknown; password: unknown };

/** Creates a user with a password. Admin only. */
export async function createUser(actor: Actor, input: CreateUserInput): Promise<UserSummary> {
  requireAdmin(actor);
  const fields: FieldErrors = {};
  const email = checkEmail(input.email, fields);
  const name = checkName(input.name, fields);
  const roles = checkRoles(input.roles, fields);
  const password = checkPassword(input.password, fields);
  if (Object.keys(fields).length) throw validationError(fields);
  const passwordHash = await hashPassword(password);
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    await lockAdmins(tx, actor);
    const taken = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (taken) {
      throw new AppError('email_taken', 'A user with this email already exists.', {
        fields: {
          email: { code: 'email_taken', message: 'A user with this email already exists.' },
        },
      });
    }
    const user = await tx.user.create({
      // An admin-chosen password: replaced by the user at first sign-in.
      data: { email, name, roles, passwordHash, mustChangePassword: true },
      select: summarySelect,
    });
    await auditUserChange(tx, actor, 'user.created', user.id, { email, roles });
    return toSummary(user);
  });
}

/** Replaces a user's roles. Admin only; an admin cannot drop their own admin role. */
export async function updateUserRoles(
  actor: Actor,
  userId: string,
  rawRoles: unknown,
): Promise<UserSummary> {
  requireAdmin(actor);
  const fields: FieldErrors = {};
  const roles = checkRoles(rawRoles, fields);
  if (Object.keys(fields).length) throw validationError(fields);
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const admins = await lockAdmins(tx, actor);
    const target = await findTarget(tx, userId);
    if (!roles.includes(Role.admin) && target.roles.includes(Role.admin)) {
      if (target.id === actor.id) {
        throw new AppError('cannot_remove_own_admin', 'You cannot remove your own admin role.');
      }
      if (!target.disabled && admins.filter((id) => id !== target.id).length === 0) {
        throw new AppError('last_admin', 'At least one enabled admin must remain.');
      }
    }
    // Saving the same roles is not a change: nothing to write or audit.
    if (roles.join(',') === target.roles.join(',')) return toSummary(target);
    const user = await tx.user.update({
      where: { id: target.id },
      data: { roles },
      select: summarySelect,
    });
    // Taking a role away ends the user's sessions: nothing opened with the
    // old roles (a page, a live feed) keeps going on them.
    const removed = target.roles.some((r) => !roles.includes(r));
    const ended = removed ? await endUserSessions(tx, target.id) : 0;
    await auditUserChange(tx, actor, 'user.roles_changed', target.id, {
      from: target.roles,
      to: roles,
      sessionsEnded: ended,
    });
    return toSummary(user);
  });
}

/** Disables or enables a user. Admin only; an admin cannot disable themselves. */
export async function setUserDisabled(
  actor: Actor,
  userId: string,
  disabled: boolean,
): Promise<UserSummary> {
  requireAdmin(actor);
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const admins = await lockAdmins(tx, actor);
    const target = await findTarget(tx, userId);
    if (disabled && target.id === actor.id) {
      throw new AppError('cannot_disable_self', 'You cannot disable your own account.');
    }
    if (disabled && admins.includes(target.id) && admins.length === 1) {
      throw new AppError('last_admin', 'At least one enabled admin must remain.');
    }
    if (target.disabled === disabled) return toSummary(target);
    const user = await tx.user.update({
      where: { id: target.id },
      data: { disabled },
      select: summarySelect,
    });
    if (disabled) await endUserSessions(tx, target.id);
    await auditUserChange(tx, actor, disabled ? 'user.disabled' : 'user.enabled', target.id);
    return toSummary(user);
  });
}

/** Sets a new password for another user. Admin only. */
export async function resetUserPassword(
  actor: Actor,
  userId: string,
  rawPassword: unknown,
): Promise<void> {
  requireAdmin(actor);
  const fields: FieldErrors = {};
  const password = checkPassword(rawPassword, fields);
  if (Object.keys(fields).length) throw validationError(fields);
  const passwordHash = await hashPassword(password);
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    await lockAdmins(tx, actor);
    const target = await findTarget(tx, userId);
    // Every session of the user ends, and the new (admin-known) password
    // must be replaced at the next sign-in.
    await tx.user.update({
      where: { id: target.id },
      data: { passwordHash, mustChangePassword: true },
      select: { id: true },
    });
    const ended = await endUserSessions(tx, target.id);
    await auditUserChange(tx, actor, 'user.password_reset', target.id, { sessionsEnded: ended });
  });
}
