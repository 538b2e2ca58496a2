import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/server/http/api-error';
import { postWebhook } from '@/lib/server/net/http-post';
import { assertWebhookUrl, guardOptionsFromConfig, type GuardOptions } from '@/lib/server/net/ssrf';
import { decryptSecret, encryptSecret } from '@/lib/server/webhooks/encryption';
import { generateWebhookSecret, signedHeaders } from '@/lib/server/webhooks/signing';

/**
 * Witnesses (issue 13 item 4): URLs outside this deployment that receive
 * every signed tree head, so a copy of each exists beyond the database's
 * reach. An admin registers one (the URL passes the same SSRF guard as
 * webhook URLs); it gets its own Standard Webhooks secret, shown once.
 * publish-head.ts queues a `witness.notify` job per head and witness;
 * `notifyWitness` sends it; the verifier checks the log against every head
 * a witness acknowledged (docs/witnesses.md).
 */

export const WITNESS_EVENT = 'checkpoint.tree_head';
const TIMEOUT_MS = 5_000;

export type WitnessSummary = {
  id: string;
  url: string;
  enabled: boolean;
  createdAt: Date;
  lastAttemptAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
  acknowledged: number;
  pending: number;
  lastAcknowledgedSize: number | null;
};

/** Registers a witness; answers its secret, which is never shown again. */
export async function registerWitness(
  prisma: PrismaClient,
  actorId: string,
  rawUrl: string,
  guard: GuardOptions = guardOptionsFromConfig(),
): Promise<{ id: string; url: string; secret: string }> {
  const url = (await assertWebhookUrl(rawUrl, guard)).toString();
  if (await prisma.witness.findUnique({ where: { url }, select: { id: true } })) {
    throw new AppError('conflict', 'This URL is already a witness.');
  }
  const secret = generateWebhookSecret();
  const row = await prisma.$transaction(async (tx) => {
    const w = await tx.witness.create({
      data: { url, secret: encryptSecret(secret), createdById: actorId },
      select: { id: true },
    });
    await tx.auditEvent.create({
      data: {
        actorId,
        actorKind: 'user',
        action: 'witness.registered',
        targetType: 'witness',
        targetId: w.id,
        details: { url },
      },
    });
    return w;
  });
  return { id: row.id, url, secret };
}

export async function removeWitness(prisma: PrismaClient, actorId: string, id: string) {
  const w = await prisma.witness.findUnique({ where: { id }, select: { url: true } });
  if (!w) throw new AppError('not_found', 'No such witness.');
  await prisma.$transaction([
    prisma.witness.delete({ where: { id } }),
    prisma.auditEvent.create({
      data: {
        actorId,
        actorKind: 'user',
        action: 'witness.removed',
        targetType: 'witness',
        targetId: id,
        details: { url: w.url },
      },
    }),
  ]);
}

export async function listWitnesses(prisma: PrismaClient): Promise<WitnessSummary[]> {
  const rows = await prisma.$queryRawUnsafe<
    (Omit<WitnessSummary, 'acknowledged' | 'pending' | 'lastAcknowledgedSize'> & {
      acknowledged: string;
      pending: string;
      lastAcknowledgedSize: string | null;
    })[]
  >(
    `SELECT w.id::text AS id, w.url, w.enabled, w."createdAt", w."lastAttemptAt", w."lastError",
       w."consecutiveFailures",
       count(h.size) FILTER (WHERE h."acknowledgedAt" IS NOT NULL)::text AS acknowledged,
       count(h.size) FILTER (WHERE h."acknowledgedAt" IS NULL)::text AS pending,
       max(h.size) FILTER (WHERE h."acknowledgedAt" IS NOT NULL)::text AS "lastAcknowledgedSize"
     FROM "Witness" w LEFT JOIN "WitnessHead" h ON h."witnessId" = w.id
     GROUP BY w.id ORDER BY w."createdAt"`,
  );
  return rows.map((r) => ({
    ...r,
    acknowledged: Number(r.acknowledged),
    pending: Number(r.pending),
    lastAcknowledgedSize: r.lastAcknowledgedSize === null ? null : Number(r.lastAcknowledgedSize),
  }));
}

/** The body a witness receives for one head (docs/witnesses.md). */
export function witnessBody(head: { size: number; root_hash: string; jws: string }): string {
  return JSON.stringify({
    type: WITNESS_EVENT,
    tree_head: { size: head.size, root_hash: head.root_hash, jws: head.jws },
  });
}

export class WitnessDeliveryError extends Error {
  constructor(readonly reason: string) {
    super(`witness delivery failed: ${reason}`);
    this.name = 'WitnessDeliveryError';
  }
}

/**
 * Sends one head to one witness. On a 2xx the head is acknowledged; on a
 * failure the attempt is recorded (shown on /settings/witnesses) and it
 * throws, so the job is retried with back-off. A removed witness, or a head
 * already acknowledged, is done.
 */
export async function notifyWitness(
  prisma: PrismaClient,
  witnessId: string,
  size: number,
  guard: GuardOptions = guardOptionsFromConfig(),
): Promise<'acknowledged' | 'skipped'> {
  const head = await prisma.witnessHead.findUnique({
    where: { witnessId_size: { witnessId, size: BigInt(size) } },
    select: { rootHash: true, jws: true, acknowledgedAt: true, witness: true },
  });
  if (!head || head.acknowledgedAt || !head.witness.enabled) return 'skipped';
  const body = witnessBody({ size, root_hash: head.rootHash, jws: head.jws });
  let result: { ok: boolean; error?: string };
  try {
    const secret = decryptSecret(head.witness.secret);
    const headers = { ...signedHeaders([secret], `th_${size}`, body) };
    result = await postWebhook({
      url: head.witness.url,
      body,
      headers,
      timeoutMs: TIMEOUT_MS,
      guard,
    });
  } catch (err) {
    result = { ok: false, error: `not_sent: ${err instanceof Error ? err.message : String(err)}` };
  }
  const now = new Date();
  const key = { witnessId_size: { witnessId, size: BigInt(size) } };
  if (result.ok) {
    await prisma.$transaction([
      prisma.witnessHead.update({
        where: key,
        data: { acknowledgedAt: now, attempts: { increment: 1 }, lastError: null },
      }),
      prisma.witness.update({
        where: { id: witnessId },
        data: { lastAttemptAt: now, lastError: null, consecutiveFailures: 0 },
      }),
    ]);
    return 'acknowledged';
  }
  const reason = (result.error ?? 'failed').slice(0, 500);
  await prisma.$transaction([
    prisma.witnessHead.update({
      where: key,
      data: { attempts: { increment: 1 }, lastError: reason },
    }),
    prisma.witness.update({
      where: { id: witnessId },
      data: { lastAttemptAt: now, lastError: reason, consecutiveFailures: { increment: 1 } },
    }),
  ]);
  throw new WitnessDeliveryError(reason);
}
