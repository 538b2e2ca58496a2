import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Actor } from '../auth/user-records';
import { config } from '../config';
import { AppError } from '../http/api-error';
import { moduleLogger } from '../logger';
import { escapeMrkdwn } from './blocks';
import { slackWebClient } from './client';
import { linkRequestMessage } from './link-blocks';

/**
 * Linking a Checkpoint user to a Slack member is proven, not asserted: the
 * user names a member id, the bot sends that member a direct message with a
 * one-time button, and only that member's press (a Slack-signed interaction
 * from our workspace whose user id is the claimed one) sets
 * `User.slackUserId`. A pending request grants nothing, and does not block
 * the member's real owner from linking (squatting a colleague's id fails).
 */

const log = moduleLogger('slack');
export const LINK_TTL_MS = 15 * 60_000;
/** Asking again within this window is refused: the DM is not a spam cannon. */
export const LINK_RESEND_MS = 60_000;
const SLACK_USER_ID = /^[UW][A-Z0-9]{6,20}$/;
const MAX_TOKEN = 200;

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const fieldError = (code: 'slack_user_id_invalid' | 'slack_user_id_taken', message: string) => ({
  fields: { slackUserId: { code, message } },
});

function parseSlackUserId(raw: unknown): string {
  const value = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  if (!SLACK_USER_ID.test(value)) {
    throw new AppError(
      'request_invalid',
      'Check the Slack member id.',
      fieldError(
        'slack_user_id_invalid',
        'A Slack member id looks like U0123ABCD (Profile → ⋮ → Copy member ID).',
      ),
    );
  }
  return value;
}

/**
 * Starts (or restarts) a link: stores the token's hash, then DMs the member.
 * A new request replaces the user's earlier one, whose button then fails.
 */
export async function requestSlackLink(
  db: PrismaClient,
  actor: Actor,
  raw: unknown,
  now = new Date(),
): Promise<{ slackUserId: string; expiresAt: Date }> {
  const slackUserId = parseSlackUserId(raw);
  if (!config().SLACK_BOT_TOKEN) {
    throw new AppError(
      'slack_link_unavailable',
      'Slack linking is not set up here (no bot token to send the confirmation). Ask an admin.',
    );
  }
  const user = await db.user.findUnique({
    where: { id: actor.id },
    select: { email: true, slackUserId: true, slackLinkRequest: { select: { createdAt: true } } },
  });
  if (!user) throw new AppError('not_found', 'The user was not found.');
  if (user.slackUserId === slackUserId) {
    throw new AppError('conflict', 'This Slack account is already linked to you.');
  }
  const owner = await db.user.findUnique({ where: { slackUserId }, select: { id: true } });
  if (owner) {
    const message = 'This Slack account is linked to another user; an admin can revoke that link.';
    throw new AppError('slack_user_id_taken', message, fieldError('slack_user_id_taken', message));
  }
  const last = user.slackLinkRequest?.createdAt;
  if (last && now.getTime() - last.getTime() < LINK_RESEND_MS) {
    throw new AppError(
      'slack_link_too_soon',
      'A confirmation was sent less than a minute ago; check Slack, or try again in a minute.',
    );
  }
  const token = randomBytes(32).toString('base64url');
  const tokenHash = hashLinkToken(token);
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS);
  const data = { slackUserId, tokenHash, expiresAt, createdAt: now };
  await db.$transaction([
    db.slackLinkRequest.upsert({
      where: { userId: actor.id },
      create: { userId: actor.id, ...data },
      update: data,
    }),
    db.auditEvent.create({
      data: {
        actorId: actor.id,
        actorKind: 'user',
        action: 'user.slack_link_requested',
        targetType: 'user',
        targetId: actor.id,
        details: { slackUserId },
      },
    }),
  ]);
  const msg = linkRequestMessage({ email: user.email, token, expiresAt });
  try {
    // Posting to a member id lands in the bot's direct messages with them.
    await slackWebClient().chat.postMessage({
      channel: slackUserId,
      text: msg.text,
      blocks: msg.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    });
  } catch (err) {
    await db.slackLinkRequest.deleteMany({ where: { userId: actor.id, tokenHash } });
    const slackError = (err as { data?: { error?: unknown } }).data?.error;
    log.warn({ err: String(err), slackError }, 'slack link DM failed');
    throw new AppError(
      'slack_link_dm_failed',
      `Slack did not deliver the confirmation${typeof slackError === 'string' ? ` (${slackError})` : ''}; check the member id. Nothing was linked.`,
    );
  }
  return { slackUserId, expiresAt };
}

export type LinkPress = { ok: boolean; text: string };

const STALE =
  'This confirmation is no longer valid (already used, replaced by a newer one, or withdrawn); nothing was linked. Start again on your Checkpoint profile.';

async function pressedRequest(db: PrismaClient, token: unknown) {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN) return null;
  return db.slackLinkRequest.findUnique({
    where: { tokenHash: hashLinkToken(token) },
    select: {
      id: true,
      userId: true,
      slackUserId: true,
      tokenHash: true,
      expiresAt: true,
      user: { select: { email: true } },
    },
  });
}

/**
 * The "This is me" press. `slackUserId` is the interaction's signed user
 * id: a forwarded or leaked button pressed by anyone else links nothing.
 */
export async function confirmSlackLink(
  db: PrismaClient,
  input: { token: unknown; slackUserId: string },
  now = new Date(),
): Promise<LinkPress> {
  const req = await pressedRequest(db, input.token);
  if (!req) return { ok: false, text: STALE };
  if (req.slackUserId !== input.slackUserId) {
    return {
      ok: false,
      text: 'This confirmation was sent to another Slack account; nothing was linked.',
    };
  }
  if (req.expiresAt.getTime() <= now.getTime()) {
    return {
      ok: false,
      text: 'This confirmation expired; nothing was linked. Send a new one from your Checkpoint profile.',
    };
  }
  const taken = {
    ok: false,
    text: 'This Slack account is already linked to another Checkpoint user; nothing was linked. An admin can revoke that link on the Slack settings page.',
  };
  try {
    return await db.$transaction(async (tx) => {
      const owner = await tx.user.findUnique({
        where: { slackUserId: req.slackUserId },
        select: { id: true },
      });
      if (owner && owner.id !== req.userId) return taken;
      // Deleting by id and hash makes the token single-use even under a double press.
      const used = await tx.slackLinkRequest.deleteMany({
        where: { id: req.id, tokenHash: req.tokenHash },
      });
      if (used.count !== 1) return { ok: false, text: STALE };
      await tx.user.update({
        where: { id: req.userId },
        data: { slackUserId: req.slackUserId, slackLinkedAt: now },
        select: { id: true },
      });
      await tx.auditEvent.create({
        data: {
          actorId: req.userId,
          actorKind: 'slack',
          action: 'user.slack_linked',
          targetType: 'user',
          targetId: req.userId,
          details: { slackUserId: req.slackUserId },
        },
      });
      return {
        ok: true,
        text: `Linked: Slack decisions by this account now act as ${escapeMrkdwn(req.user.email)}.`,
      };
    });
  } catch (err) {
    // A concurrent confirmation of the same member by another user won the unique index.
    if ((err as { code?: string }).code === 'P2002') return taken;
    throw err;
  }
}

/** "Not me": the member refuses the link; the request is withdrawn. */
export async function declineSlackLink(
  db: PrismaClient,
  input: { token: unknown; slackUserId: string },
): Promise<LinkPress> {
  const req = await pressedRequest(db, input.token);
  if (!req || req.slackUserId !== input.slackUserId) return { ok: false, text: STALE };
  await db.$transaction([
    db.slackLinkRequest.deleteMany({ where: { id: req.id } }),
    db.auditEvent.create({
      data: {
        actorId: req.userId,
        actorKind: 'slack',
        action: 'user.slack_link_declined',
        targetType: 'user',
        targetId: req.userId,
        details: { slackUserId: req.slackUserId },
      },
    }),
  ]);
  return { ok: true, text: 'Not linked. The request was withdrawn.' };
}
