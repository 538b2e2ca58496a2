import 'server-only';
import { db } from '@/lib/server/db';
import { hashApiKey, isApiKeyShaped } from '@/lib/server/hosts/api-key';
import { moduleLogger } from '@/lib/server/logger';
import { AppError } from './api-error';

/** The machine client behind a request authenticated with an API key. */
export type HostPrincipal = { hostId: string; apiKeyId: string; hostName: string };

/** `lastUsedAt` is written at most this often per key, never once per request. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

const log = moduleLogger('host-auth');

/**
 * A 401 that carries `WWW-Authenticate: Bearer` (RFC 6750). One message for
 * every cause (missing, malformed, unknown, revoked, archived host), so a
 * caller learns nothing about which keys exist.
 */
class HostUnauthenticated extends AppError {
  constructor() {
    super('unauthenticated', 'Send a valid API key as "Authorization: Bearer <key>".');
  }

  override toResponse(headers?: HeadersInit): Response {
    const h = new Headers(headers);
    h.set('WWW-Authenticate', 'Bearer realm="checkpoint"');
    return super.toResponse(h);
  }
}

/** The key from `Authorization: Bearer <key>` (scheme case-insensitive, RFC 7235), or null. */
function bearerKey(req: Request): string | null {
  const header = req.headers.get('authorization');
  if (!header) return null;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m || !isApiKeyShaped(m[1])) return null;
  return m[1];
}

/**
 * Resolves the Bearer API key of a request to its host, for
 * `route({ auth: 'host' })`. The lookup is by the key's SHA-256, so the
 * comparison never touches the secret itself (constant-time by
 * construction). Revoked keys and archived hosts are refused.
 */
export async function authenticateHost(req: Request): Promise<HostPrincipal> {
  const key = bearerKey(req);
  if (!key) throw new HostUnauthenticated();
  const prisma = await db();
  const row = await prisma.apiKey.findUnique({
    where: { hash: hashApiKey(key) },
    select: {
      id: true,
      hostId: true,
      revokedAt: true,
      lastUsedAt: true,
      host: { select: { name: true, archivedAt: true } },
    },
  });
  if (!row || row.revokedAt || row.host.archivedAt) throw new HostUnauthenticated();
  await touchLastUsed(row.id, row.lastUsedAt);
  return { hostId: row.hostId, apiKeyId: row.id, hostName: row.host.name };
}

/**
 * Records use at most once per interval per key. The row read for
 * authentication says when it was last written, so most requests skip the
 * write; the conditional update keeps racing requests (and instances) to
 * one write. A failure here is logged, never a reason to refuse the request.
 */
async function touchLastUsed(apiKeyId: string, lastUsedAt: Date | null): Promise<void> {
  const now = Date.now();
  if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_WRITE_INTERVAL_MS) return;
  const cutoff = new Date(now - LAST_USED_WRITE_INTERVAL_MS);
  try {
    const prisma = await db();
    await prisma.apiKey.updateMany({
      where: { id: apiKeyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: cutoff } }] },
      data: { lastUsedAt: new Date(now) },
    });
  } catch (err) {
    log.warn({ err, apiKeyId }, 'could not record API key use');
  }
}
