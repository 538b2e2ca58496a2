import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { Role } from '@/lib/generated/prisma/enums';
import type { Actor } from '../auth/user-records';
import { forbidden, notFound } from '../http/api-error';
import { isUuid } from '../http/uuid';

/**
 * Reading and removing Slack links: a user sees and removes their own (the
 * profile), an admin sees and revokes anyone's (/settings/slack). Creating
 * one is link.ts: only the Slack member's own press does that.
 */

export interface OwnSlackLink {
  verified: { slackUserId: string; linkedAt: Date | null } | null;
  pending: { slackUserId: string; createdAt: Date; expiresAt: Date; expired: boolean } | null;
}

export async function ownSlackLink(
  db: PrismaClient,
  userId: string,
  now = new Date(),
): Promise<OwnSlackLink> {
  const u = await db.user.findUnique({
    where: { id: userId },
    select: {
      slackUserId: true,
      slackLinkedAt: true,
      slackLinkRequest: { select: { slackUserId: true, createdAt: true, expiresAt: true } },
    },
  });
  if (!u) throw notFound('The user');
  const p = u.slackLinkRequest;
  return {
    verified: u.slackUserId ? { slackUserId: u.slackUserId, linkedAt: u.slackLinkedAt } : null,
    pending: p ? { ...p, expired: p.expiresAt.getTime() <= now.getTime() } : null,
  };
}

export interface SlackLinkRow {
  userId: string;
  email: string;
  name: string | null;
  slackUserId: string;
  state: 'verified' | 'pending' | 'expired';
  verifiedAt: Date | null;
  requestedAt: Date | null;
  expiresAt: Date | null;
}

/** Every link, confirmed or not, for the admins' list. */
export async function listSlackLinks(db: PrismaClient, now = new Date()): Promise<SlackLinkRow[]> {
  const [verified, pending] = await Promise.all([
    db.user.findMany({
      where: { slackUserId: { not: null } },
      orderBy: { email: 'asc' },
      select: { id: true, email: true, name: true, slackUserId: true, slackLinkedAt: true },
    }),
    db.slackLinkRequest.findMany({
      orderBy: { createdAt: 'desc' },
      select: {
        slackUserId: true,
        createdAt: true,
        expiresAt: true,
        user: { select: { id: true, email: true, name: true } },
      },
    }),
  ]);
  return [
    ...verified.map((u) => ({
      userId: u.id,
      email: u.email,
      name: u.name,
      slackUserId: u.slackUserId as string,
      state: 'verified' as const,
      verifiedAt: u.slackLinkedAt,
      requestedAt: null,
      expiresAt: null,
    })),
    ...pending.map((r) => ({
      userId: r.user.id,
      email: r.user.email,
      name: r.user.name,
      slackUserId: r.slackUserId,
      state: r.expiresAt.getTime() <= now.getTime() ? ('expired' as const) : ('pending' as const),
      verifiedAt: null,
      requestedAt: r.createdAt,
      expiresAt: r.expiresAt,
    })),
  ];
}

/** Removes a user's link and any pending request, with an audit event. */
async function removeLink(
  db: PrismaClient,
  actor: Actor,
  userId: string,
  action: 'user.slack_unlinked' | 'slack.link_revoked',
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const u = await tx.user.findUnique({
      where: { id: userId },
      select: { slackUserId: true, slackLinkRequest: { select: { slackUserId: true } } },
    });
    if (!u) throw notFound('The user');
    const had = u.slackUserId ?? u.slackLinkRequest?.slackUserId ?? null;
    if (!had) return false;
    await tx.slackLinkRequest.deleteMany({ where: { userId } });
    await tx.user.update({
      where: { id: userId },
      data: { slackUserId: null, slackLinkedAt: null },
      select: { id: true },
    });
    await tx.auditEvent.create({
      data: {
        actorId: actor.id,
        actorKind: 'user',
        action,
        targetType: 'user',
        targetId: userId,
        details: {
          slackUserId: u.slackUserId,
          pendingSlackUserId: u.slackLinkRequest?.slackUserId ?? null,
        },
      },
    });
    return true;
  });
}

/** The user removes their own link (confirmed or pending). False when there was none. */
export function unlinkOwnSlack(db: PrismaClient, actor: Actor): Promise<boolean> {
  return removeLink(db, actor, actor.id, 'user.slack_unlinked');
}

/** An admin revokes anyone's link (confirmed or pending). */
export async function revokeSlackLink(
  db: PrismaClient,
  actor: Actor,
  userId: string,
): Promise<boolean> {
  if (!actor.roles.includes(Role.admin)) throw forbidden('Only admins revoke Slack links.');
  if (!isUuid(userId)) throw notFound('The user');
  return removeLink(db, actor, userId, 'slack.link_revoked');
}
