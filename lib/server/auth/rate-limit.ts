import 'server-only';
import { db } from '@/lib/server/db';

/**
 * Sign-in rate limiting over SignInAttempt rows: a sliding window of failed
 * attempts per email and per client address. Refused attempts are not
 * recorded, so an attacker hammering a victim's email cannot extend the
 * lock-out beyond one window.
 */

export const SIGN_IN_LIMITS = {
  windowMs: 15 * 60 * 1000,
  perEmail: 5,
  perIp: 20,
} as const;

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Pure window logic: given the times of failures (any order) and a limit,
 * whether one more attempt is allowed at `now`, and if not, when it will be.
 * Only failures inside (now - windowMs, now] count.
 */
export function evaluateWindow(
  failures: readonly Date[],
  limit: number,
  windowMs: number,
  now: Date,
): RateLimitDecision {
  const from = now.getTime() - windowMs;
  const inWindow = failures
    .map((d) => d.getTime())
    .filter((t) => t > from && t <= now.getTime())
    .sort((a, b) => a - b);
  if (inWindow.length < limit) return { allowed: true };
  // Allowed again once enough old failures slide out to leave limit-1 in the window.
  const unblockAt = inWindow[inWindow.length - limit] + windowMs;
  return { allowed: false, retryAfterMs: Math.max(1, unblockAt - now.getTime()) };
}

/** Combines decisions: refused if any refuses, for the longest wait. */
export function combineDecisions(...decisions: RateLimitDecision[]): RateLimitDecision {
  let retryAfterMs = 0;
  for (const d of decisions) if (!d.allowed) retryAfterMs = Math.max(retryAfterMs, d.retryAfterMs);
  return retryAfterMs > 0 ? { allowed: false, retryAfterMs } : { allowed: true };
}

/** Minutes to show in "try again in N min", never 0. */
export function retryAfterMinutes(ms: number): number {
  return Math.max(1, Math.ceil(ms / 60_000));
}

/**
 * Whether a sign-in attempt for `email` from `ip` may proceed now. For the
 * email, a success resets the count (failures before it are forgiven).
 */
export async function checkSignInRateLimit(
  email: string,
  ip: string | null,
  now = new Date(),
): Promise<RateLimitDecision> {
  const prisma = await db();
  const since = new Date(now.getTime() - SIGN_IN_LIMITS.windowMs);
  const lastSuccess = await prisma.signInAttempt.findFirst({
    where: { email, success: true, createdAt: { gt: since } },
    orderBy: { createdAt: 'desc' },
    select: { createdAt: true },
  });
  const emailFrom = lastSuccess && lastSuccess.createdAt > since ? lastSuccess.createdAt : since;
  const byEmail = await prisma.signInAttempt.findMany({
    where: { email, success: false, createdAt: { gt: emailFrom } },
    select: { createdAt: true },
    orderBy: { createdAt: 'desc' },
    take: SIGN_IN_LIMITS.perEmail,
  });
  const byIp = ip
    ? await prisma.signInAttempt.findMany({
        where: { ip, success: false, createdAt: { gt: since } },
        select: { createdAt: true },
        orderBy: { createdAt: 'desc' },
        take: SIGN_IN_LIMITS.perIp,
      })
    : [];
  const { windowMs, perEmail, perIp } = SIGN_IN_LIMITS;
  return combineDecisions(
    evaluateWindow(
      byEmail.map((a) => a.createdAt),
      perEmail,
      windowMs,
      now,
    ),
    evaluateWindow(
      byIp.map((a) => a.createdAt),
      perIp,
      windowMs,
      now,
    ),
  );
}

/** Records the outcome of an attempt that was allowed to proceed. */
export async function recordSignInAttempt(
  email: string,
  ip: string | null,
  success: boolean,
): Promise<void> {
  const prisma = await db();
  await prisma.signInAttempt.create({ data: { email, ip, success } });
}
