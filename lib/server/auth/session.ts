import 'server-only';
import { headers } from 'next/headers';
import { redirect, unstable_rethrow } from 'next/navigation';
import { cache } from 'react';
import type { Role } from '@/lib/generated/prisma/enums';
import { AppError } from '@/lib/server/http/api-error';
import { auth } from './auth';
import { PATH_HEADER } from './redirects';
import { AREAS, type Area, hasAnyRole } from './roles';
import { type ActiveSession, findActiveSession } from './user-sessions';

/** The signed-in user, as loaded from the database for this request. */
export type SessionUser = {
  id: string;
  email: string;
  name: string | null;
  roles: Role[];
  /** The server-side session this request came with (UserSession.id). */
  sessionId: string;
};

/** Where a session that must replace its password is sent. */
export const PASSWORD_CHANGE_PATH = '/profile/password';

/**
 * The live server-side session of this request, or null. The cookie only
 * names the session: its row (and its user) is re-read on every request,
 * once per request via React's cache, in one query by primary key, so
 * signing out, disabling a user or changing roles takes effect at once.
 */
export const getActiveSession = cache(async (): Promise<ActiveSession | null> => {
  const session = await auth();
  const sessionId = (session as { sessionId?: unknown } | null)?.sessionId;
  const userId = session?.user?.id;
  if (typeof sessionId !== 'string' || typeof userId !== 'string') return null;
  return findActiveSession(sessionId, userId);
});

/**
 * The signed-in user or null. A session that signed in with a generated or
 * admin-set password gets 403 `password_change_required` instead (from
 * every API route, through route()); pages go through requireUser, which
 * sends it to the change-password page.
 */
export const getCurrentUser = cache(async (): Promise<SessionUser | null> => {
  const active = await getActiveSession();
  if (!active) return null;
  if (active.mustChangePassword) throw passwordChangeRequired();
  return { ...active.user, sessionId: active.sessionId };
});

export function passwordChangeRequired(): AppError {
  return new AppError(
    'password_change_required',
    'Change the password you were given before going on.',
    { location: PASSWORD_CHANGE_PATH },
  );
}

/**
 * For `.catch(orNull)` where a failure (database down) should render as
 * "nobody signed in": Next's own control-flow errors (dynamic rendering,
 * redirects) still pass through.
 */
export function orNull(err: unknown): null {
  unstable_rethrow(err);
  return null;
}

/** The path of the current page, from the header proxy.ts sets. */
async function currentPath(): Promise<string> {
  const h = await headers();
  return h.get(PATH_HEADER) ?? '/';
}

async function signInAgain(): Promise<never> {
  redirect(`/sign-in?next=${encodeURIComponent(await currentPath())}`);
}

/**
 * For pages and server actions: the signed-in user, who must hold one of
 * `roles` (admins always pass; no roles = any signed-in user). Without a
 * session it redirects to sign-in (coming back afterwards); with the wrong
 * role to the "You don't have access" page; with a password to replace to
 * the change-password page.
 */
export async function requireUser(...roles: Role[]): Promise<SessionUser> {
  const active = await getActiveSession();
  if (!active) return signInAgain();
  if (active.mustChangePassword) redirect(PASSWORD_CHANGE_PATH);
  const user = { ...active.user, sessionId: active.sessionId };
  if (roles.length > 0 && !hasAnyRole(user.roles, roles)) {
    redirect(`/forbidden?from=${encodeURIComponent(await currentPath())}`);
  }
  return user;
}

/**
 * For the change-password page and its action only: the signed-in user
 * even while a password change is pending, and whether one is.
 */
export async function requireSignedIn(): Promise<{
  user: SessionUser;
  mustChangePassword: boolean;
}> {
  const active = await getActiveSession();
  if (!active) return signInAgain();
  return {
    user: { ...active.user, sessionId: active.sessionId },
    mustChangePassword: active.mustChangePassword,
  };
}

/** For the pages of an area (approvals, audit, hosts, users): its roles, from AREAS. */
export function requireArea(area: Area): Promise<SessionUser> {
  return requireUser(...AREAS[area].roles);
}
