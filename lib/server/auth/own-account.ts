import 'server-only';
import { db } from '@/lib/server/db';
import { AppError, notFound } from '@/lib/server/http/api-error';
import { hashPassword, verifyPassword } from './password';
import { type FieldErrors, checkPassword, validationError } from './user-input';
import {
  type Actor,
  auditUserChange,
  summarySelect,
  toSummary,
  type UserSummary,
} from './user-records';

/** What any signed-in user may do to their own account (the Profile page). */

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
    fields.currentPassword = { code: 'password_wrong', message: 'The current password is wrong.' };
  }
  if (Object.keys(fields).length) throw validationError(fields);
  const passwordHash = await hashPassword(next);
  await prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: actor.id }, data: { passwordHash }, select: { id: true } });
    await auditUserChange(tx, actor, 'user.password_changed', actor.id);
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
      throw new AppError('slack_user_id_taken', 'Another user already linked this Slack id.', {
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
    await auditUserChange(
      tx,
      actor,
      value ? 'user.slack_linked' : 'user.slack_unlinked',
      actor.id,
      {
        slackUserId: value || null,
      },
    );
    return toSummary(user);
  });
}
