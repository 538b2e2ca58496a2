import 'server-only';
import { isIP } from 'node:net';
import type { Prisma } from '@/lib/generated/prisma/client';
import { db } from '@/lib/server/db';
import { moduleLogger } from '@/lib/server/logger';
import { checkpointMetrics } from '@/lib/server/metrics/registry';

/**
 * Sign-in back-off over SignInAttempt rows, in three scopes:
 *
 * - pair (account + client): after 5 failures since the pair's last success,
 *   each further attempt waits 1 s, 2 s, 4 s … (capped at 15 min) after the
 *   pair's latest failure;
 * - client (across accounts): the same curve from 20 failures, so one address
 *   cannot spray passwords over many accounts;
 * - account (across clients): never refuses on its own. Once an account has
 *   10 failures from anywhere, clients that have not signed in to it lately
 *   start their pair back-off after 1 failure instead of 5. A client that has
 *   not failed is never refused for the account's sake, so an attacker cannot
 *   lock the owner out.
 *
 * Refused attempts are not recorded: hammering during a wait does not extend
 * it. An allowed attempt is written as a failure before the password is
 * checked (under a per-client lock), so a burst of parallel requests cannot
 * all slip through the same check.
 */

export const SIGN_IN_LIMITS = {
  /** Failures older than this are forgotten (housekeeping deletes rows after a day too). */
  windowMs: 24 * 60 * 60 * 1000,
  pairThreshold: 5,
  clientThreshold: 20,
  /** Account failures that make the account "under attack". */
  accountThreshold: 10,
  /** Pair threshold for clients new to an account under attack. */
  unfamiliarPairThreshold: 1,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60 * 1000,
} as const;

export type ThrottleScope = 'pair' | 'client' | 'account';

export type RateLimitDecision =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number; scope: ThrottleScope };

/** Wait after `failures` failures: 0 below `threshold`, then base·2^(failures−threshold), capped. */
export function backoffMs(failures: number, threshold: number): number {
  if (failures < threshold) return 0;
  const { baseDelayMs, maxDelayMs } = SIGN_IN_LIMITS;
  // 2^20 s is far past the cap; stop there so the power never overflows.
  const exponent = Math.min(failures - threshold, 20);
  return Math.min(baseDelayMs * 2 ** exponent, maxDelayMs);
}

/** Failures to fetch per scope: past threshold + 10 the wait is capped anyway. */
const fetchCap = (threshold: number) => threshold + 11;

/**
 * Whether one more attempt may go ahead at `now`, given the failures that
 * count (any order): allowed once the back-off since the latest one is over.
 */
export function evaluateBackoff(
  failures: readonly Date[],
  threshold: number,
  now: Date,
  scope: ThrottleScope,
): RateLimitDecision {
  const wait = backoffMs(failures.length, threshold);
  if (wait === 0) return { allowed: true };
  const latest = Math.max(...failures.map((d) => d.getTime()));
  const retryAfterMs = latest + wait - now.getTime();
  return retryAfterMs > 0 ? { allowed: false, retryAfterMs, scope } : { allowed: true };
}

/** Combines decisions: refused if any refuses, for the longest wait. */
export function combineDecisions(...decisions: RateLimitDecision[]): RateLimitDecision {
  let worst: RateLimitDecision = { allowed: true };
  for (const d of decisions) {
    if (!d.allowed && (worst.allowed || d.retryAfterMs > worst.retryAfterMs)) worst = d;
  }
  return worst;
}

/** Whole seconds to show in "try again in …", never 0. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The throttling key for a client address: IPv4 as is, IPv6 by its /64
 * (one subscriber usually holds a whole /64 and could rotate through it).
 */
export function clientKey(ip: string | null): string {
  if (!ip) return 'unknown';
  if (isIP(ip) !== 6) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

type Tx = Prisma.TransactionClient;

async function failuresSince(tx: Tx, where: Prisma.SignInAttemptWhereInput, take: number) {
  const rows = await tx.signInAttempt.findMany({
    where: { ...where, success: false },
    select: { createdAt: true },
    orderBy: { createdAt: 'desc' },
    take,
  });
  return rows.map((r) => r.createdAt);
}

/** The decision for `email` from `client` at `now`, read inside the caller's transaction. */
async function decide(
  tx: Tx,
  email: string,
  client: string,
  now: Date,
): Promise<RateLimitDecision> {
  const L = SIGN_IN_LIMITS;
  const since = new Date(now.getTime() - L.windowMs);
  const lastPairSuccess = await tx.signInAttempt.findFirst({
    where: { email, client, success: true, createdAt: { gt: since } },
    orderBy: { createdAt: 'desc' },
    select: { createdAt: true },
  });
  const pairFrom = lastPairSuccess?.createdAt ?? since;
  const pair = await failuresSince(
    tx,
    { email, client, createdAt: { gt: pairFrom } },
    fetchCap(L.pairThreshold),
  );
  const byClient = await failuresSince(
    tx,
    { client, createdAt: { gt: since } },
    fetchCap(L.clientThreshold),
  );
  let pairDecision = evaluateBackoff(pair, L.pairThreshold, now, 'pair');
  // Only a client that has already failed for this account can be slowed.
  if (pairDecision.allowed && pair.length > 0 && !lastPairSuccess) {
    // Bounded: under attack the account may have thousands of failures.
    const account = await failuresSince(
      tx,
      { email, createdAt: { gt: since } },
      L.accountThreshold,
    );
    if (account.length >= L.accountThreshold) {
      pairDecision = evaluateBackoff(pair, L.unfamiliarPairThreshold, now, 'account');
    }
  }
  return combineDecisions(
    pairDecision,
    evaluateBackoff(byClient, L.clientThreshold, now, 'client'),
  );
}

export type SignInReservation =
  | { allowed: true; attemptId: bigint }
  | { allowed: false; retryAfterMs: number; scope: ThrottleScope };

/**
 * Decides whether a sign-in for `email` from `ip` may go ahead and, if so,
 * records it as a failure until completeSignInAttempt says otherwise (a
 * crash in between leaves a failure: fail closed). Refusals are logged and
 * counted, not recorded.
 */
export async function reserveSignInAttempt(
  email: string,
  ip: string | null,
  at?: Date,
): Promise<SignInReservation> {
  const client = clientKey(ip);
  const prisma = await db();
  const result = await prisma.$transaction(async (tx) => {
    // One client's attempts check and reserve one at a time.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sign-in:${client}`}))`;
    const now = at ?? new Date();
    const decision = await decide(tx, email, client, now);
    if (!decision.allowed) return decision;
    const row = await tx.signInAttempt.create({
      data: { email, ip, client, success: false, createdAt: now },
      select: { id: true },
    });
    return { allowed: true as const, attemptId: row.id };
  });
  if (!result.allowed) {
    checkpointMetrics().signInThrottled.inc({ scope: result.scope });
    moduleLogger('auth').warn(
      { email, ip, client, scope: result.scope, retryAfterMs: result.retryAfterMs },
      'sign-in throttled',
    );
  }
  return result;
}

/** Records the outcome of a reserved attempt (it stays a failure unless `success`). */
export async function completeSignInAttempt(attemptId: bigint, success: boolean): Promise<void> {
  if (!success) return;
  const prisma = await db();
  await prisma.signInAttempt.update({
    where: { id: attemptId },
    data: { success: true },
    select: { id: true },
  });
}
