import 'server-only';
import { db } from '@/lib/server/db';
import { notFound } from '@/lib/server/http/api-error';
import { hashPassword, verifyPassword } from './password';
import { type FieldErrors, checkPassword, validationError } from './user-input';
import {
  type Actor,
  auditUserChange,
  summarySelect,
  toSummary,
  type UserSummary,
} from './user-records';
import { endUserSessions } from './user-sessions';

/** What any signed-in user may do to their own account (the Profile page). */

/** The acting user's own record. */
export async function getOwnProfile(actor: Actor): Promise<UserSummary> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: actor.id }, select: summarySelect });
  if (!user) throw notFound('The user');
  return toSummary(user);
}

/**
 * Changes the acting user's own password after checking the current one,
 * clears a pending forced change, and ends every other session of the user
 * (whoever knew the old password and signed in elsewhere is out). The
 * session making the change, `actor.sessionId`, stays signed in.
 */
export async function changeOwnPassword(
  actor: Actor & { sessionId?: string },
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
    fields.currentPassword = { code: 'password_wrong', message: 'The current password is wrong.' };
  } else if (!fields.newPassword && user.passwordHash && next === current) {
    // A generated or admin-set password must really be replaced.
    fields.newPassword = {
      code: 'password_unchanged',
      message: 'Choose a password different from the current one.',
    };
  }
  if (Object.keys(fields).length) throw validationError(fields);
  const passwordHash = await hashPassword(next);
  await prisma.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: actor.id },
      data: { passwordHash, mustChangePassword: false },
      select: { id: true },
    });
    const ended = await endUserSessions(tx, actor.id, { except: actor.sessionId });
    await auditUserChange(tx, actor, 'user.password_changed', actor.id, { sessionsEnded: ended });
  });
}

/** "Sign out everywhere": ends every session of the acting user, this one included. */
export async function endOwnSessions(actor: Actor): Promise<number> {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const ended = await endUserSessions(tx, actor.id);
    await auditUserChange(tx, actor, 'user.sessions_ended', actor.id, { sessionsEnded: ended });
    return ended;
  });
}

// Linking Slack is no longer a plain self-service write: the Slack member
// must confirm it (lib/server/slack/link.ts).
