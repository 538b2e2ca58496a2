import 'server-only';
import { isUuid } from '@/lib/server/http/uuid';
import { headers } from 'next/headers';
import { redirect, unstable_rethrow } from 'next/navigation';
import { cache } from 'react';
import { auth } from './auth';
import type { Role } from '@/lib/generated/prisma/enums';
import { db } from '@/lib/server/db';
import { PATH_HEADER } from './redirects';
import { AREAS, type Area, hasAnyRole } from './roles';

/** The signed-in user, as loaded from the database for this request. */
export type SessionUser = {
  id: string;
  email: string;
  name: string | null;
  roles: Role[];
};

/**
 * The signed-in user or null. The session cookie only names the user: the
 * record is re-read on every request (once per request, via React's cache),
 * so disabling a user or changing roles takes effect at once.
 */
export const getCurrentUser = cache(async (): Promise<SessionUser | null> => {
  const session = await auth();
  const id = session?.user?.id;
  if (!id || !isUuid(id)) return null;
  const prisma = await db();
  const user = await prisma.user.findUnique({
    where: { id },
    select: { id: true, email: true, name: true, roles: true, disabled: true },
  });
  if (!user || user.disabled) return null;
  return { id: user.id, email: user.email, name: user.name, roles: user.roles };
});

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

/**
 * For pages and server actions: the signed-in user, who must hold one of
 * `roles` (admins always pass; no roles = any signed-in user). Without a
 * session it redirects to sign-in (coming back afterwards); with the wrong
 * role to the "You don't have access" page.
 */
export async function requireUser(...roles: Role[]): Promise<SessionUser> {
  const user = await getCurrentUser();
  if (!user) {
    redirect(`/sign-in?next=${encodeURIComponent(await currentPath())}`);
  }
  if (roles.length > 0 && !hasAnyRole(user.roles, roles)) {
    redirect(`/forbidden?from=${encodeURIComponent(await currentPath())}`);
  }
  return user;
}

/** For the pages of an area (approvals, audit, hosts, users): its roles, from AREAS. */
export function requireArea(area: Area): Promise<SessionUser> {
  return requireUser(...AREAS[area].roles);
}
