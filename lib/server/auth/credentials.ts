import 'server-only';
import type { Role } from '@/lib/generated/prisma/enums';
import { db } from '@/lib/server/db';
import { hashPassword, needsRehash, PASSWORD_MAX_LENGTH, verifyPassword } from './password';
import { completeSignInAttempt, reserveSignInAttempt, retryAfterSeconds } from './rate-limit';

/** Why a sign-in was refused; the sign-in page maps each to one message. */
export type SignInRefusal =
  | { code: 'invalid_credentials' }
  | { code: 'rate_limited'; retryAfterSeconds: number };

export type SignInResult =
  | { ok: true; user: { id: string; email: string; name: string | null; roles: Role[] } }
  | ({ ok: false } & SignInRefusal);

/** Canonical form of an email for lookups and rate-limit keys. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Checks an email + password sign-in: rate limit first, then the password
 * (always verified, even for unknown or disabled accounts, so timing and
 * messages do not reveal which emails exist). Records the outcome.
 */
export async function authenticateWithPassword(input: {
  email: string;
  password: string;
  ip: string | null;
}): Promise<SignInResult> {
  const email = normalizeEmail(input.email).slice(0, 320);
  const password = input.password.slice(0, PASSWORD_MAX_LENGTH);
  if (!email || !password) return { ok: false, code: 'invalid_credentials' };

  const limit = await reserveSignInAttempt(email, input.ip);
  if (!limit.allowed) {
    return {
      ok: false,
      code: 'rate_limited',
      retryAfterSeconds: retryAfterSeconds(limit.retryAfterMs),
    };
  }

  const prisma = await db();
  const user = await prisma.user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, roles: true, disabled: true, passwordHash: true },
  });
  const passwordOk = await verifyPassword(password, user?.passwordHash ?? null);
  // A disabled account answers like a wrong password: no hint that it exists.
  const ok = Boolean(user && passwordOk && !user.disabled);
  await completeSignInAttempt(limit.attemptId, ok);
  if (!ok || !user) return { ok: false, code: 'invalid_credentials' };

  const data: { lastSignInAt: Date; passwordHash?: string } = { lastSignInAt: new Date() };
  if (user.passwordHash && needsRehash(user.passwordHash)) {
    data.passwordHash = await hashPassword(password);
  }
  await prisma.user.update({ where: { id: user.id }, data, select: { id: true } });
  return { ok: true, user: { id: user.id, email: user.email, name: user.name, roles: user.roles } };
}
