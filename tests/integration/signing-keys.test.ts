import { spawn } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { NextRequest } from 'next/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { encryptSecret } from '@/lib/server/webhooks/encryption';
import { forgetActiveSigningKey, publicJwks, signJws, verifyJws } from '@/lib/server/signing/jws';
import { keyIdOf, parseSigningKey } from '@/lib/server/signing/key-material';
import { ensureSigningKey, listSigningKeys, rotateSigningKey } from '@/lib/server/signing/keys';
import { closeTestDb, testDb } from './helpers/db';

/**
 * Issue 13 item 1 on a real PostgreSQL: one active key however many
 * processes start at once, rotation that keeps old signatures verifiable,
 * SIGNING_KEY import, and a stored key that does not decrypt stopping the
 * signing instead of being replaced.
 */

// route() imports the session module (next-auth), which does not load outside Next; the
// route is public and never asks for a user.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

async function reset(): Promise<void> {
  const prisma = await testDb();
  await prisma.signingKey.deleteMany();
  await prisma.auditEvent.deleteMany({ where: { targetType: 'signing_key' } });
  forgetActiveSigningKey();
}

function pemOfNewKey(): string {
  return generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}

beforeEach(reset);
afterAll(async () => {
  await reset();
  await closeTestDb();
});

describe('first start', () => {
  it('generates exactly one active key when five processes initialise at once', async () => {
    const prisma = await testDb();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ensureSigningKey(prisma, null)),
    );
    const rows = await listSigningKeys(prisma);
    expect(rows).toHaveLength(1);
    expect(rows[0].retiredAt).toBeNull();
    expect(rows[0].createdBy).toBe('system');
    expect(new Set(results.map((r) => r.kid))).toEqual(new Set([rows[0].kid]));
    expect(results.filter((r) => r.change === 'generated')).toHaveLength(1);
    expect(await prisma.auditEvent.count({ where: { action: 'signing_key.generated' } })).toBe(1);
    // A restart finds the key and changes nothing.
    expect(await ensureSigningKey(prisma, null)).toEqual({ kid: rows[0].kid, change: null });
  });

  it('the database itself refuses a second active key (partial unique index)', async () => {
    const prisma = await testDb();
    await ensureSigningKey(prisma, null);
    const jwk = parseSigningKey(pemOfNewKey());
    await expect(
      prisma.signingKey.create({
        data: {
          kid: await keyIdOf(jwk),
          alg: 'EdDSA',
          publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
          privateKey: encryptSecret(JSON.stringify(jwk)),
          createdBy: 'test',
        },
      }),
    ).rejects.toMatchObject({ code: 'P2002' });
  });

  it('stores the private key encrypted, never in the clear', async () => {
    const prisma = await testDb();
    await ensureSigningKey(prisma, null);
    const [row] = await prisma.signingKey.findMany({ select: { privateKey: true } });
    expect(row.privateKey).toMatch(/^enc1:/);
    expect(row.privateKey).not.toMatch(/"d"/);
  });
});

describe('signing and rotation', () => {
  it('signs with the active kid; after a rotation the new kid signs and the old JWS still verifies', async () => {
    const prisma = await testDb();
    const { kid: first } = await ensureSigningKey(prisma, null);
    const before = await signJws({ ticket: 't1', outcome: 'approve' }, { typ: 'receipt+jws' });
    const header = JSON.parse(Buffer.from(before.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'EdDSA', kid: first, typ: 'receipt+jws' });

    const admin = await prisma.user.create({
      data: { email: `keys-${Date.now()}@example.test`, roles: ['admin'] },
      select: { id: true },
    });
    const rotated = await rotateSigningKey(
      prisma,
      { kind: 'user', id: admin.id },
      { fromEnv: false },
    );
    expect(rotated.retired).toEqual([first]);
    expect(rotated.kid).not.toBe(first);
    forgetActiveSigningKey();
    const after = await signJws({ ticket: 't2' });

    const jwks = await publicJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.kid, first]);
    expect(await verifyJws(before, jwks)).toMatchObject({
      payload: { ticket: 't1', outcome: 'approve' },
      header: { kid: first },
    });
    expect(await verifyJws(after, jwks)).toMatchObject({
      payload: { ticket: 't2' },
      header: { kid: rotated.kid },
    });
    // Without the retired key, the old signature has nothing to verify against.
    const activeOnly = { keys: jwks.keys.filter((k) => k.kid === rotated.kid) };
    await expect(verifyJws(before, activeOnly)).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });

    const rows = await listSigningKeys(prisma);
    expect(rows.map((r) => [r.kid, r.retiredAt === null, r.createdBy])).toEqual([
      [rotated.kid, true, `user:${admin.id}`],
      [first, false, 'system'],
    ]);
    const event = await prisma.auditEvent.findFirstOrThrow({
      where: { action: 'signing_key.rotated' },
      select: { actorId: true, targetId: true, details: true },
    });
    expect(event).toEqual({
      actorId: admin.id,
      targetId: rotated.kid,
      details: { retired: [first], via: 'admin' },
    });
    await prisma.user.delete({ where: { id: admin.id } });
  });

  it('refuses a tampered payload and a signature by a key the JWKS does not hold', async () => {
    const prisma = await testDb();
    await ensureSigningKey(prisma, null);
    const jws = await signJws({ outcome: 'deny' });
    const jwks = await publicJwks();
    const [h, , s] = jws.split('.');
    const forged = Buffer.from(JSON.stringify({ outcome: 'allow' })).toString('base64url');
    await expect(verifyJws(`${h}.${forged}.${s}`, jwks)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    // The same kid, but the x of another key: a substituted JWKS does not verify.
    const other = createPrivateKey(pemOfNewKey()).export({ format: 'jwk' });
    const swapped = { keys: jwks.keys.map((k) => ({ ...k, x: other.x })) };
    await expect(verifyJws(jws, swapped)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });

  it('refuses rotation while SIGNING_KEY decides the key', async () => {
    const prisma = await testDb();
    const { kid } = await ensureSigningKey(prisma, parseSigningKey(pemOfNewKey()));
    await expect(
      rotateSigningKey(prisma, { kind: 'cli' }, { fromEnv: true }),
    ).rejects.toMatchObject({
      code: 'signing_key_from_env',
      status: 409,
    });
    expect((await listSigningKeys(prisma)).map((r) => r.kid)).toEqual([kid]);
  });

  it('fails with signing_key_unreadable rather than sign with another key', async () => {
    const prisma = await testDb();
    const { kid } = await ensureSigningKey(prisma, null);
    // Encrypted under this APP_ENCRYPTION_KEY, but another key: a row swapped in.
    const stranger = parseSigningKey(pemOfNewKey());
    await prisma.signingKey.update({
      where: { kid },
      data: { privateKey: encryptSecret(JSON.stringify(stranger)) },
    });
    forgetActiveSigningKey();
    await expect(signJws({ a: 1 })).rejects.toMatchObject({ code: 'signing_key_unreadable' });
    // Not decryptable at all (altered, or another APP_ENCRYPTION_KEY).
    await prisma.signingKey.update({ where: { kid }, data: { privateKey: 'enc1:AAAA:BBBB:CCCC' } });
    forgetActiveSigningKey();
    await expect(signJws({ a: 1 })).rejects.toMatchObject({ code: 'signing_key_unreadable' });
    // Nothing new was generated to stand in for it.
    expect(await prisma.signingKey.count()).toBe(1);
  });
});

describe('SIGNING_KEY', () => {
  it('imports the PEM as the active key, retires the generated one, and keeps both published', async () => {
    const prisma = await testDb();
    const { kid: generated } = await ensureSigningKey(prisma, null);
    const pem = pemOfNewKey();
    const imported = await ensureSigningKey(prisma, parseSigningKey(pem));
    expect(imported.change).toBe('imported');
    expect(imported.kid).toBe(await keyIdOf(parseSigningKey(pem)));
    expect((await publicJwks()).keys.map((k) => k.kid)).toEqual([imported.kid, generated]);
    // The same key as a JWK is the same kid: a restart imports nothing.
    const asJwk = JSON.stringify(createPrivateKey(pem).export({ format: 'jwk' }));
    expect(await ensureSigningKey(prisma, parseSigningKey(asJwk))).toEqual({
      kid: imported.kid,
      change: null,
    });
    forgetActiveSigningKey();
    const jws = await signJws({ n: 1 });
    expect((await verifyJws(jws, await publicJwks())).header.kid).toBe(imported.kid);
    const rows = await listSigningKeys(prisma);
    expect(rows.find((r) => r.kid === imported.kid)?.createdBy).toBe('SIGNING_KEY');
  });

  it('several processes starting with the same SIGNING_KEY import it once', async () => {
    const prisma = await testDb();
    const jwk = parseSigningKey(pemOfNewKey());
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ensureSigningKey(prisma, jwk)),
    );
    expect(results.filter((r) => r.change === 'imported')).toHaveLength(1);
    expect(await prisma.signingKey.count()).toBe(1);
  });

  it('a SIGNING_KEY that was retired earlier becomes the active key again', async () => {
    const prisma = await testDb();
    const a = parseSigningKey(pemOfNewKey());
    const b = parseSigningKey(pemOfNewKey());
    const { kid: kidA } = await ensureSigningKey(prisma, a);
    const { kid: kidB } = await ensureSigningKey(prisma, b);
    expect(await ensureSigningKey(prisma, a)).toEqual({ kid: kidA, change: 'imported' });
    const rows = await listSigningKeys(prisma);
    expect(rows.map((r) => [r.kid, r.retiredAt === null])).toEqual([
      [kidA, true],
      [kidB, false],
    ]);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('answers every public key, cacheable, with no private member', async () => {
    const prisma = await testDb();
    const { kid: first } = await ensureSigningKey(prisma, null);
    const { kid: second } = await rotateSigningKey(prisma, { kind: 'cli' }, { fromEnv: false });
    const res = await jwksRoute(new NextRequest('http://localhost/.well-known/jwks.json'), {
      params: Promise.resolve({}),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(body.keys.map((k) => k.kid)).toEqual([second, first]);
    for (const key of body.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(await keyIdOf(key as { kty: string; crv: string; x: string })).toBe(key.kid);
    }
  });
});

/** `npm run keys:rotate` against the run's DATABASE_URL (inherited from global setup). */
function rotateCli(
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'keys:rotate'], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('npm run keys:rotate', () => {
  it('rotates on the shared database, and is refused while SIGNING_KEY is set', async () => {
    const prisma = await testDb();
    const { kid: first } = await ensureSigningKey(prisma, null);
    const ok = await rotateCli();
    expect(ok.code, ok.out).toBe(0);
    const rows = await listSigningKeys(prisma);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ kid: first, createdBy: 'system' });
    expect(rows[0]).toMatchObject({ retiredAt: null, createdBy: 'cli' });
    expect(ok.out).toContain(`active:  ${rows[0].kid}`);
    expect(ok.out).toContain(`retired: ${first}`);

    const refused = await rotateCli({ SIGNING_KEY: pemOfNewKey() });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('keys:rotate failed [signing_key_from_env]');
    expect(await prisma.signingKey.count()).toBe(2);
  });
});
