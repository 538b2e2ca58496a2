import 'server-only';
import { z } from 'zod';
import type { Prisma } from '@/lib/generated/prisma/client';
import { Role } from '@/lib/generated/prisma/enums';
import { normalizeEmail } from '@/lib/server/auth/credentials';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from '@/lib/server/auth/password';
import { parseRoles } from '@/lib/server/auth/roles';
import { db } from '@/lib/server/db';
import { ApiError, forbidden, notFound } from '@/lib/server/http/api-error';

/**
 * User services. Every function takes the acting user and checks its role
 * itself: pages and actions check too, but this is the last line. Every
 * change writes an AuditEvent (no secrets) in the same transaction.
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

const summarySelect = {
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

type Row = Prisma.UserGetPayload<{ select: typeof summarySelect }>;

function toSummary({ passwordHash, oidcSubject, ...u }: Row): UserSummary {
  return { ...u, hasPassword: Boolean(passwordHash), ssoLinked: Boolean(oidcSubject) };
}

/** Field errors carry stable codes; the form shows the message by the field. */
export type FieldErrors = Record<string, { code: string; message: string }>;

export function validationError(fields: FieldErrors): ApiError {
  const first = Object.values(fields)[0];
  return new ApiError(400, 'invalid_request', first?.message ?? 'Invalid input.', { fields });
}

const emailSchema = z.email();

function checkEmail(raw: unknown, fields: FieldErrors): string {
  const email = typeof raw === 'string' ? normalizeEmail(raw) : '';
  if (!emailSchema.safeParse(email).success || email.length > 320) {
    fields.email = { code: 'email_invalid', message: 'Enter a valid email address.' };
  }
  return email;
}

export function checkPassword(raw: unknown, fields: FieldErrors, field = 'password'): string {
  const password = typeof raw === 'string' ? raw : '';
  if (password.length < PASSWORD_MIN_LENGTH) {
    fields[field] = {
      code: 'password_too_short',
      message: `Use at least ${PASSWORD_MIN_LENGTH} characters.`,
    };
  } else if (password.length > PASSWORD_MAX_LENGTH) {
    fields[field] = {
      code: 'password_too_long',
      message: `Use at most ${PASSWORD_MAX_LENGTH} characters.`,
    };
  }
  return password;
}

function checkRoles(raw: unknown, fields: FieldErrors): Role[] {
  const list = Array.isArray(raw) ? raw.map(String) : [];
  const roles = Array.isArray(raw) ? parseRoles(list) : null;
  if (!roles) fields.roles = { code: 'roles_invalid', message: 'Choose roles from the list.' };
  return roles ?? [];
}

function checkName(raw: unknown, fields: FieldErrors): string | null {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length > 100) {
    fields.name = { code: 'name_too_long', message: 'Use at most 100 characters.' };
  }
  return name || null;
}

function requireAdmin(actor: Actor): void {
  if (!actor.roles.includes(Role.admin)) throw forbidden('Only admins can manage users.');
}

type Tx = Prisma.TransactionClient;

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

async function audit(
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

async function findTarget(tx: Tx, userId: string): Promise<Row> {
  const ok = z.uuid().safeParse(userId).success;
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
      throw new ApiError(409, 'email_taken', 'A user with this email already exists.', {
        fields: {
          email: { code: 'email_taken', message: 'A user with this email already exists.' },
        },
      });
    }
    const user = await tx.user.create({
      data: { email, name, roles, passwordHash },
      select: summarySelect,
    });
    await audit(tx, actor, 'user.created', user.id, { email, roles });
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
        throw new ApiError(
          409,
          'cannot_remove_own_admin',
          'You cannot remove your own admin role.',
        );
      }
      if (!target.disabled && admins.filter((id) => id !== target.id).length === 0) {
        throw new ApiError(409, 'last_admin', 'At least one enabled admin must remain.');
      }
    }
    // Saving the same roles is not a change: nothing to write or audit.
    if (roles.join(',') === target.roles.join(',')) return toSummary(target);
    const user = await tx.user.update({
      where: { id: target.id },
      data: { roles },
      select: summarySelect,
    });
    await audit(tx, actor, 'user.roles_changed', target.id, { from: target.roles, to: roles });
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
      throw new ApiError(409, 'cannot_disable_self', 'You cannot disable your own account.');
    }
    if (disabled && admins.includes(target.id) && admins.length === 1) {
      throw new ApiError(409, 'last_admin', 'At least one enabled admin must remain.');
    }
    if (target.disabled === disabled) return toSummary(target);
    const user = await tx.user.update({
      where: { id: target.id },
      data: { disabled },
      select: summarySelect,
    });
    await audit(tx, actor, disabled ? 'user.disabled' : 'user.enabled', target.id);
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
    await tx.user.update({
      where: { id: target.id },
      data: { passwordHash },
      select: { id: true },
    });
    await audit(tx, actor, 'user.password_reset', target.id);
  });
}

/** The acting user's own record. */
export async function getOwnProfile(actor: Actor): Promise<UserSummary> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: actor.id }, select: summarySelect });
  if (!user) throw notFound('The user');
  return toSummary(user);
}

/** Changes the acting user's own password after checking the current one. */
export async function changeOwnPassword(
  actor: Actor,
  input: { currentPassword: unknown; newPassword: unknown },
): Promise<void> {
  const fields: FieldErrors = {};
  const next = checkPassword(input.newPassword, fields, 'newPassword');
  const current = typeof input.currentPassword === 'string' ? input.currentPassword : '';
  const prisma = await db();
  const user = await prisma.user.findUnique({
    where: { id: actor.id },
    select: { passwordHash: true },
  });
  if (!user) throw notFound('The user');
  if (user.passwordHash && !(await verifyPassword(current, user.passwordHash))) {
    fields.currentPassword = { code: 'wrong_password', message: 'The current password is wrong.' };
  }
  if (Object.keys(fields).length) throw validationError(fields);
  const passwordHash = await hashPassword(next);
  await prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: actor.id }, data: { passwordHash }, select: { id: true } });
    await audit(tx, actor, 'user.password_changed', actor.id);
  });
}

/** Slack member ids look like U0123ABCD (or W… on Enterprise Grid). */
const SLACK_USER_ID = /^[UW][A-Z0-9]{6,20}$/;

/** Links (or with an empty value, unlinks) the acting user's Slack user id. */
export async function setOwnSlackUserId(actor: Actor, raw: unknown): Promise<UserSummary> {
  const value = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  if (value && !SLACK_USER_ID.test(value)) {
    throw validationError({
      slackUserId: {
        code: 'slack_user_id_invalid',
        message: 'A Slack member id looks like U0123ABCD (Profile → ⋮ → Copy member ID).',
      },
    });
  }
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const owner = value
      ? await tx.user.findUnique({ where: { slackUserId: value }, select: { id: true } })
      : null;
    if (owner && owner.id !== actor.id) {
      throw new ApiError(409, 'slack_user_id_taken', 'Another user already linked this Slack id.', {
        fields: {
          slackUserId: {
            code: 'slack_user_id_taken',
            message: 'Another user already linked this Slack id.',
          },
        },
      });
    }
    const user = await tx.user.update({
      where: { id: actor.id },
      data: { slackUserId: value || null },
      select: summarySelect,
    });
    await audit(tx, actor, value ? 'user.slack_linked' : 'user.slack_unlinked', actor.id, {
      slackUserId: value || null,
    });
    return toSummary(user);
  });
}
