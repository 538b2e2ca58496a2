import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { decryptSecret, encryptSecret } from './encryption';
import { generateWebhookSecret } from './signing';

type Tx = Prisma.TransactionClient | PrismaClient;

/** Creates a new secret; returns its plain value, shown to the admin once. */
export async function addSecret(tx: Tx, webhookId: string): Promise<string> {
  const plain = generateWebhookSecret();
  await tx.webhookSecret.create({ data: { webhookId, secret: encryptSecret(plain) } });
  return plain;
}

/**
 * Rotation: the current secrets stop at `now + overlapMs` (the receiver has
 * that long to switch), a new one starts now. Until then deliveries carry
 * both signatures.
 */
export async function rotateSecrets(tx: Tx, webhookId: string, overlapMs: number): Promise<string> {
  const until = new Date(Date.now() + overlapMs);
  await tx.webhookSecret.updateMany({
    where: { webhookId, OR: [{ expiresAt: null }, { expiresAt: { gt: until } }] },
    data: { expiresAt: until },
  });
  return addSecret(tx, webhookId);
}

/** The secrets that sign now, newest first. */
export async function activeSecrets(
  tx: Tx,
  webhookId: string,
  now = new Date(),
): Promise<string[]> {
  const rows = await tx.webhookSecret.findMany({
    where: { webhookId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: 'desc' },
    select: { secret: true },
  });
  return rows.map((r) => decryptSecret(r.secret));
}

export async function secretSummaries(tx: Tx, webhookId: string, now = new Date()) {
  const rows = await tx.webhookSecret.findMany({
    where: { webhookId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: 'desc' },
    select: { id: true, createdAt: true, expiresAt: true },
  });
  return rows;
}
