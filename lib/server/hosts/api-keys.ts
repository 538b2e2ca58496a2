import 'server-only';
import { db } from '@/lib/server/db';
import { AppError, notFound } from '@/lib/server/http/api-error';
import { auditHost, type HostActorId, isUuid, lockHost, requireHostAdmin } from './admin-actor';
import { generateApiKey } from './api-key';

/** A key as lists show it: never the key or its hash. */
export type ApiKeySummary = {
  id: string;
  hostId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  createdBy: { id: string; email: string } | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const summarySelect = {
  id: true,
  hostId: true,
  name: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  createdBy: { select: { id: true, email: true } },
} as const;

const NAME_MAX = 64;

function checkKeyName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!name || name.length > NAME_MAX || /\p{Cc}/u.test(name)) {
    const message = `Name the key (1 to ${NAME_MAX} characters), e.g. after where it is used.`;
    throw new AppError('api_key_name_invalid', message, {
      fields: { name: { code: 'api_key_name_invalid', message } },
    });
  }
  return name;
}

/**
 * Issues a key for a host. The returned `key` is the only time it exists in
 * clear: show it once, then it is gone (only its SHA-256 is stored).
 */
export async function issueApiKey(
  hostId: string,
  name: unknown,
  actorId: HostActorId,
): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const keyName = checkKeyName(name);
  const generated = generateApiKey();
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const host = await lockHost(tx, hostId);
    if (host.archivedAt) {
      throw new AppError('host_archived', 'Restore the host before issuing keys for it.');
    }
    const apiKey = await tx.apiKey.create({
      data: {
        hostId: host.id,
        name: keyName,
        prefix: generated.prefix,
        hash: generated.hash,
        createdById: actorId,
      },
      select: summarySelect,
    });
    await auditHost(tx, actorId, 'api_key.issued', host.id, {
      apiKeyId: apiKey.id,
      name: keyName,
      prefix: apiKey.prefix,
    });
    return { key: generated.key, apiKey };
  });
}

/** Revokes a key at once; revoking a revoked key changes nothing. */
export async function revokeApiKey(apiKeyId: string, actorId: HostActorId): Promise<ApiKeySummary> {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const found = isUuid(apiKeyId)
      ? await tx.apiKey.findUnique({ where: { id: apiKeyId }, select: { id: true } })
      : null;
    if (!found) throw notFound('The API key');
    // Conditional: two admins revoking at once write (and audit) once.
    const { count } = await tx.apiKey.updateMany({
      where: { id: apiKeyId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const apiKey = await tx.apiKey.findUniqueOrThrow({
      where: { id: apiKeyId },
      select: summarySelect,
    });
    if (count === 1) {
      await auditHost(tx, actorId, 'api_key.revoked', apiKey.hostId, {
        apiKeyId: apiKey.id,
        name: apiKey.name,
        prefix: apiKey.prefix,
      });
    }
    return apiKey;
  });
}

/** A host's keys, newest first (revoked ones included, marked). */
export async function listApiKeys(hostId: string): Promise<ApiKeySummary[]> {
  if (!isUuid(hostId)) return [];
  const prisma = await db();
  return prisma.apiKey.findMany({
    where: { hostId },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    select: summarySelect,
  });
}
