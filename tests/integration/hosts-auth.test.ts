import { NextRequest } from 'next/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/server/http/api-error';
import { authenticateHost, LAST_USED_WRITE_INTERVAL_MS } from '@/lib/server/http/host-auth';
import { route } from '@/lib/server/http/route';
import {
  archiveHost,
  createHost,
  issueApiKey,
  restoreHost,
  revokeApiKey,
} from '@/lib/server/hosts';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

// The route wrapper imports the user session (Auth.js, which needs Next's
// runtime); host routes never consult it, so it is a stub here.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

function req(authorization?: string): NextRequest {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  return new NextRequest('http://localhost/api/v1/whoami', { headers });
}

/** A host-authenticated endpoint, through the real wrapper. */
const whoami = route({ auth: 'host' }, ({ host }) => ({ host }));
const ctx = { params: Promise.resolve({}) };

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('host authentication with Bearer API keys', () => {
  let adminId: string;
  let hostId: string;
  let key: string;
  let apiKeyId: string;

  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    adminId = (await prisma.user.create({ data: { email: 'a@example.com', roles: ['admin'] } })).id;
    hostId = (await createHost({ name: 'billing-agent' }, adminId)).id;
    const issued = await issueApiKey(hostId, 'ci', adminId);
    key = issued.key;
    apiKeyId = issued.apiKey.id;
  });
  afterAll(closeTestDb);

  it('a good key resolves to its own host and key', async () => {
    expect(key).toMatch(/^ck_[0-9A-Za-z]{32,}$/);
    const principal = await authenticateHost(req(`Bearer ${key}`));
    expect(principal).toEqual({ hostId, apiKeyId, hostName: 'billing-agent' });
    const res = await whoami(req(`bearer ${key}`), ctx);
    expect(res.status).toBe(200);
    expect((await res.json()).host.hostId).toBe(hostId);
  });

  it('a second host with its own key never resolves to the first host', async () => {
    const other = await createHost({ name: 'other' }, adminId);
    const { key: otherKey } = await issueApiKey(other.id, 'x', adminId);
    expect((await authenticateHost(req(`Bearer ${otherKey}`))).hostId).toBe(other.id);
    expect((await authenticateHost(req(`Bearer ${key}`))).hostId).toBe(hostId);
  });

  it('missing, malformed, unknown and revoked keys get the same 401 with WWW-Authenticate: Bearer', async () => {
    const unknown = `ck_${'A'.repeat(40)}`;
    const cases = [
      undefined,
      key,
      `Basic ${key}`,
      `Bearer ${key} extra`,
      'Bearer ck_short',
      `Bearer ${unknown}`,
    ];
    const bodies: string[] = [];
    for (const authorization of cases) {
      const res = await whoami(req(authorization), ctx);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      bodies.push(await res.text());
    }
    await revokeApiKey(apiKeyId, adminId);
    const revoked = await whoami(req(`Bearer ${key}`), ctx);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    bodies.push(await revoked.text());
    // Never says which: every refusal has the same body.
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]).error.code).toBe('unauthenticated');
  });

  it('a revoked key is refused at once', async () => {
    await authenticateHost(req(`Bearer ${key}`));
    await revokeApiKey(apiKeyId, adminId);
    expect((await refusal(authenticateHost(req(`Bearer ${key}`)))).status).toBe(401);
  });

  it('a key of an archived host is refused, and works again once the host is restored', async () => {
    await archiveHost(hostId, adminId);
    expect((await refusal(authenticateHost(req(`Bearer ${key}`)))).code).toBe('unauthenticated');

    await restoreHost(hostId, adminId);
    expect((await authenticateHost(req(`Bearer ${key}`))).hostId).toBe(hostId);
  });

  it('lastUsedAt is written on first use, then at most once a minute per key', async () => {
    const prisma = await testDb();
    const lastUsed = async () =>
      (await prisma.apiKey.findUniqueOrThrow({ where: { id: apiKeyId } })).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await authenticateHost(req(`Bearer ${key}`));
    const first = await lastUsed();
    expect(first).not.toBeNull();
    // Many requests within the minute: no further write.
    await Promise.all(Array.from({ length: 20 }, () => authenticateHost(req(`Bearer ${key}`))));
    expect(await lastUsed()).toEqual(first);
    // Once the last write is older than the interval, the next request writes again.
    const old = new Date(Date.now() - LAST_USED_WRITE_INTERVAL_MS - 1000);
    await prisma.apiKey.update({ where: { id: apiKeyId }, data: { lastUsedAt: old } });
    await Promise.all(Array.from({ length: 10 }, () => authenticateHost(req(`Bearer ${key}`))));
    const second = await lastUsed();
    expect(second?.getTime()).toBeGreaterThan(old.getTime() + LAST_USED_WRITE_INTERVAL_MS);
  });

  it('the key itself is never stored: only its SHA-256 and a short prefix', async () => {
    const prisma = await testDb();
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: apiKeyId } });
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.hash).not.toContain(key);
    expect(key.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBeLessThan(12);
    const events = await prisma.auditEvent.findMany({ select: { action: true, details: true } });
    expect(events.map((e) => e.action)).toEqual(['host.created', 'api_key.issued']);
    const dump = JSON.stringify(events);
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(row.hash);
  });
});
