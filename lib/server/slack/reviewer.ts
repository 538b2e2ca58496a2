import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hasAnyRole } from '../auth/roles';
import { passwordNotYetChosen } from '../auth/user-sessions';

export type SlackReviewer =
  | { ok: true; userId: string; label: string }
  | {
      ok: false;
      code:
        | 'slack_user_unlinked'
        | 'slack_user_disabled'
        | 'slack_user_not_reviewer'
        | 'password_change_required';
      text: string;
    };

/**
 * Maps a Slack user to the Checkpoint account whose link that Slack user
 * confirmed (requested on /profile, confirmed from the bot's DM).
 * Only active reviewers and admins who finished signing up may decide;
 * decideTicket checks the same again, this answers the refusal in words a
 * Slack user can act on.
 */
export async function slackReviewer(
  db: PrismaClient,
  slackUserId: string,
  profileUrl: string,
): Promise<SlackReviewer> {
  // Only a confirmed link counts (link.ts); slackLinkedAt is checked too, so
  // an id set by any other path never acts as anyone.
  const user = slackUserId
    ? await db.user.findFirst({
        where: { slackUserId, slackLinkedAt: { not: null } },
        select: {
          id: true,
          name: true,
          email: true,
          roles: true,
          disabled: true,
          mustChangePassword: true,
          oidcSubject: true,
        },
      })
    : null;
  if (!user && slackUserId) {
    const pending = await db.slackLinkRequest.findFirst({
      where: { slackUserId },
      select: { id: true },
    });
    if (pending) {
      return {
        ok: false,
        code: 'slack_user_unlinked',
        text: `Your Slack account is not linked yet: its link waits for your confirmation, so nothing was decided. Press "This is me" in the Checkpoint bot's direct message, or send a new one from your profile: ${profileUrl}`,
      };
    }
  }
  if (!user) {
    return {
      ok: false,
      code: 'slack_user_unlinked',
      text: `Your Slack account is not linked to a Checkpoint reviewer, so nothing was decided. Link it on your profile: ${profileUrl}`,
    };
  }
  if (user.disabled) {
    return {
      ok: false,
      code: 'slack_user_disabled',
      text: 'Your Checkpoint account is disabled, so nothing was decided.',
    };
  }
  if (!hasAnyRole(user.roles, ['reviewer'])) {
    return {
      ok: false,
      code: 'slack_user_not_reviewer',
      text: 'Only reviewers and admins decide approvals; nothing was decided.',
    };
  }
  if (passwordNotYetChosen(user)) {
    return {
      ok: false,
      code: 'password_change_required',
      text: `You have not chosen your own Checkpoint password yet, so nothing was decided. Sign in once at ${profileUrl} and replace the password you were given; then decide here.`,
    };
  }
  return { ok: true, userId: user.id, label: user.name ?? user.email };
}
