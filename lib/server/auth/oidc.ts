import 'server-only';
import { db } from '@/lib/server/db';
import { normalizeEmail } from './credentials';

export type OidcIdentity = {
  subject: string;
  email?: string | null;
  emailVerified?: boolean | null;
};

export type OidcLinkResult =
  | { ok: true; userId: string }
  | { ok: false; code: 'sso_unknown_user' | 'sso_account_disabled' };

/**
 * Maps an SSO identity to an existing user: by the linked subject, else by
 * a verified email (then links the subject). Never creates a user: access
 * and roles are granted by an admin, not by whoever the IdP lets in.
 */
export async function linkOidcUser(identity: OidcIdentity): Promise<OidcLinkResult> {
  if (!identity.subject) return { ok: false, code: 'sso_unknown_user' };
  const prisma = await db();
  const select = { id: true, disabled: true, oidcSubject: true } as const;
  let user = await prisma.user.findUnique({ where: { oidcSubject: identity.subject }, select });
  let linking = false;
  if (!user && identity.email && identity.emailVerified === true) {
    const byEmail = await prisma.user.findUnique({
      where: { email: normalizeEmail(identity.email) },
      select,
    });
    // An account already linked to another subject stays with that subject.
    if (byEmail && !byEmail.oidcSubject) {
      user = byEmail;
      linking = true;
    }
  }
  if (!user) return { ok: false, code: 'sso_unknown_user' };
  if (user.disabled) return { ok: false, code: 'sso_account_disabled' };

  await prisma.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { lastSignInAt: new Date(), ...(linking ? { oidcSubject: identity.subject } : {}) },
      select: { id: true },
    });
    if (linking) {
      await tx.auditEvent.create({
        data: {
          actorId: user.id,
          actorKind: 'user',
          action: 'user.sso_linked',
          targetType: 'user',
          targetId: user.id,
        },
      });
    }
  });
  return { ok: true, userId: user.id };
}

/** The user id linked to an SSO subject (after linkOidcUser accepted it). */
export async function userIdForOidcSubject(subject: string): Promise<string | null> {
  const prisma = await db();
  const user = await prisma.user.findUnique({
    where: { oidcSubject: subject },
    select: { id: true },
  });
  return user?.id ?? null;
}
