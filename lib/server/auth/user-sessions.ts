import 'server-only';
import type { Role } from '@/lib/generated/prisma/enums';
import { db } from '@/lib/server/db';
import { isUuid } from '@/lib/server/http/uuid';
import type { Tx } from './user-records';
import { hasAnyRole } from './roles';

/**
 * Server-side sessions behind the session JWT. The JWT only carries the
 * session's id (`sid`); the UserSession row decides whether it still
 * counts, so signing out, a password change, an admin reset, disabling a
 * user or taking roles away end sessions at once rather than when the
 * cookie expires.
 */

/** Sessions last a working day, counted from sign-in (the JWT's maxAge too). */
export const SESSION_MAX_AGE_S = 12 * 60 * 60;

/** How a session was signed in: only password sessions are held to mustChangePassword. */
export const SIGN_IN_METHODS = { password: 'password', sso: 'sso' } as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[keyof typeof SIGN_IN_METHODS];

const USER_AGENT_MAX = 256;

/** Opens a session for `userId`, first dropping that user's expired ones. */
export async function createUserSession(input: {
  userId: string;
  method: SignInMethod;
  userAgent?: string | null;
  now?: Date;
}): Promise<string> {
  const now = input.now ?? new Date();
  const prisma = await db();
  await prisma.userSession.deleteMany({
    where: { userId: input.userId, expiresAt: { lte: now } },
  });
  const row = await prisma.userSession.create({
    data: {
      userId: input.userId,
      method: input.method,
      userAgent: input.userAgent?.slice(0, USER_AGENT_MAX) || null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_S * 1000),
    },
    select: { id: true },
  });
  return row.id;
}

/** A live session and its user, as `getCurrentUser` needs them. */
export type ActiveSession = {
  sessionId: string;
  method: SignInMethod;
  user: { id: string; email: string; name: string | null; roles: Role[] };
  /** The user must replace a generated or admin-set password before anything else. */
  mustChangePassword: boolean;
};

/**
 * The session `sessionId` of user `userId` if it exists, has not expired
 * and its user is enabled; else null. One query, by primary key.
 */
export async function findActiveSession(
  sessionId: string,
  userId: string,
  now = new Date(),
): Promise<ActiveSession | null> {
  if (!isUuid(sessionId) || !isUuid(userId)) return null;
  const prisma = await db();
  const row = await prisma.userSession.findUnique({
    where: { id: sessionId },
    select: {
      userId: true,
      method: true,
      expiresAt: true,
      user: {
        select: {
          id: true,
          email: true,
          name: true,
          roles: true,
          disabled: true,
          mustChangePassword: true,
        },
      },
    },
  });
  if (!row || row.userId !== userId || row.expiresAt <= now || row.user.disabled) return null;
  const { disabled: _, mustChangePassword, ...user } = row.user;
  const method =
    row.method === SIGN_IN_METHODS.sso ? SIGN_IN_METHODS.sso : SIGN_IN_METHODS.password;
  return {
    sessionId,
    method,
    user,
    mustChangePassword: mustChangePassword && method === SIGN_IN_METHODS.password,
  };
}

/**
 * For long-lived answers (the live feed): whether the session behind them
 * may still see what it was opened for. No once a session ended, its user
 * was disabled, must replace their password, or no longer holds one of `roles`.
 */
export async function sessionStillAllows(
  sessionId: string,
  userId: string,
  roles: readonly Role[],
): Promise<boolean> {
  const active = await findActiveSession(sessionId, userId);
  return active !== null && !active.mustChangePassword && hasAnyRole(active.user.roles, roles);
}

/** Ends one session (sign-out). Unknown or already ended ids are fine. */
export async function endSession(sessionId: string): Promise<void> {
  if (!isUuid(sessionId)) return;
  const prisma = await db();
  await prisma.userSession.deleteMany({ where: { id: sessionId } });
}

/**
 * Ends every session of `userId`, or every one but `except` (the session
 * that just changed its own password). Runs inside the caller's transaction
 * so the change and the revocation land together.
 */
export async function endUserSessions(
  tx: Tx,
  userId: string,
  options: { except?: string } = {},
): Promise<number> {
  const keep = options.except && isUuid(options.except) ? options.except : null;
  const { count } = await tx.userSession.deleteMany({
    where: { userId, ...(keep ? { id: { not: keep } } : {}) },
  });
  return count;
}

/**
 * A generated or admin-set password not yet replaced: the web lets such a
 * password session do nothing but change it, and Slack must not be the way
 * around that (a user created or reset by an admin has not finished signing
 * up). A user who signs in through SSO is not held to it, as on the web
 * (their SSO sessions are not): their identity never rested on that password,
 * and they may never replace it.
 */
export function passwordNotYetChosen(user: {
  mustChangePassword: boolean;
  oidcSubject: string | null;
}): boolean {
  return user.mustChangePassword && user.oidcSubject === null;
}
