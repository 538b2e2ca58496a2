import { spawn } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { CompactSign, importJWK } from 'jose';
import { NextRequest } from 'next/server';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { encryptSecret } from '@/lib/server/webhooks/encryption';
import { forgetActiveSigningKey, publicJwks, signJws, verifyJws } from '@/lib/server/signing/jws';
import { keyIdOf, parseSigningKey } from '@/lib/server/signing/key-material';
import { ensureSigningKey, listSigningKeys, rotateSigningKey } from '@/lib/server/signing/keys';
import { checkTreeHead } from '@/lib/server/audit/integrity-head';
import { RECEIPT_TYP } from '@/lib/server/receipts/claims';
import { verifyReceipt } from '@/lib/server/receipts/verify';
import { unauthenticSigningKeys } from '@/lib/server/signing/authentic';
import { TREE_HEAD_TYP } from '@/lib/server/transparency/tree-head';
import { headSignatureProblem } from '@/lib/server/transparency/verify-heads';
import { closeTestDb, testDb } from './helpers/db';

/** SHA-256 of the empty string: the root of the empty tree (RFC 9162 §2.1.1). */
const EMPTY_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

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

  it('a SIGNING_KEY that was retired earlier never signs again (signing_key_retired)', async () => {
    const prisma = await testDb();
    const a = parseSigningKey(pemOfNewKey());
    const b = parseSigningKey(pemOfNewKey());
    const { kid: kidA } = await ensureSigningKey(prisma, a);
    // The operator's explicit change of an imported key.
    const { kid: kidB } = await ensureSigningKey(prisma, b, kidA);
    await expect(ensureSigningKey(prisma, a)).rejects.toMatchObject({
      code: 'signing_key_retired',
    });
    const rows = await listSigningKeys(prisma);
    expect(rows.map((r) => [r.kid, r.retiredAt === null])).toEqual([
      [kidB, true],
      [kidA, false],
    ]);
  });

  it('a second SIGNING_KEY cannot replace one another process imported (signing_key_conflict)', async () => {
    const prisma = await testDb();
    const a = parseSigningKey(pemOfNewKey());
    const b = parseSigningKey(pemOfNewKey());
    const { kid: kidA } = await ensureSigningKey(prisma, a);
    await expect(ensureSigningKey(prisma, b)).rejects.toMatchObject({
      code: 'signing_key_conflict',
    });
    // Naming a key that is not the active one is no licence either.
    await expect(ensureSigningKey(prisma, b, 'x'.repeat(43))).rejects.toMatchObject({
      code: 'signing_key_conflict',
    });
    expect((await listSigningKeys(prisma)).map((r) => r.kid)).toEqual([kidA]);
    // A process without SIGNING_KEY uses the active key.
    expect(await ensureSigningKey(prisma, null)).toEqual({ kid: kidA, change: null });
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

describe('a key planted in SigningKey (a database shell, without the app environment)', () => {
  /** The attacker's key pair and a row claiming it, as `INSERT INTO "SigningKey"` makes it. */
  async function plant(privateKey: string | null = null) {
    const prisma = await testDb();
    const jwk = parseSigningKey(pemOfNewKey());
    const kid = await keyIdOf(jwk);
    await prisma.$executeRawUnsafe(
      `INSERT INTO "SigningKey" (kid, alg, "publicJwk", "privateKey", "createdBy", "retiredAt")
       VALUES ($1, 'EdDSA', $2::jsonb, $3, 'system', now())`,
      kid,
      JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }),
      privateKey ?? 'enc1:AAAA:BBBB:CCCC',
    );
    const key = await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA');
    const sign = (payload: object, typ: string) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'EdDSA', kid, typ })
        .sign(key);
    return { kid, sign };
  }

  it('is neither published (JWKS, /.well-known/jwks.json) nor trusted, and is reported', async () => {
    const prisma = await testDb();
    const { kid: genuine } = await ensureSigningKey(prisma, null);
    const { kid } = await plant();
    expect((await publicJwks()).keys.map((k) => k.kid)).toEqual([genuine]);
    const res = await jwksRoute(new NextRequest('http://localhost/.well-known/jwks.json'), {
      params: Promise.resolve({}),
    });
    const served = (await res.json()) as { keys: { kid: string }[] };
    expect(served.keys.map((k) => k.kid)).toEqual([genuine]);
    expect(await unauthenticSigningKeys(prisma)).toEqual([
      {
        kid,
        reason: expect.stringMatching(/does not decrypt with this deployment's APP_ENCRYPTION_KEY/),
      },
    ]);
    // Still listed on the settings page: the row is there, only not trusted.
    expect((await listSigningKeys(prisma)).map((r) => r.kid)).toContain(kid);
  });

  it('refuses receipts and tree heads signed with it, naming the key as not authentic', async () => {
    const prisma = await testDb();
    await ensureSigningKey(prisma, null);
    const { kid, sign } = await plant();
    const receipt = await sign({ ticket_id: 't-1', outcome: 'approve' }, RECEIPT_TYP);
    expect(await verifyReceipt(receipt)).toMatchObject({ ok: false, code: 'receipt_key_unknown' });

    const payload = { size: 0, root_hash: EMPTY_ROOT, timestamp: Date.now(), kid };
    const head = { ...payload, jws: await sign(payload, TREE_HEAD_TYP) };
    const checked = await checkTreeHead(prisma, head);
    expect(checked.valid).toBe(false);
    expect(checked.valid === false && checked.finding).toMatchObject({
      problem: 'tree_head_invalid',
      detail: expect.stringContaining(
        `key ${kid}, which is stored in SigningKey but is not authentic`,
      ),
    });
    // The background verifier's head check says the same.
    const said = await headSignatureProblem(head, await publicJwks(), [
      ...(await unauthenticSigningKeys(prisma)),
    ]);
    expect(said).toContain('is not authentic');
  });

  it('a real ciphertext under another public key, or a genuine row whose public key was swapped, is not authentic', async () => {
    const prisma = await testDb();
    const { kid: genuine } = await ensureSigningKey(prisma, null);
    const stored = await prisma.signingKey.findUniqueOrThrow({
      where: { kid: genuine },
      select: { privateKey: true },
    });
    // The genuine key's ciphertext copied under the attacker's public key.
    const { kid } = await plant(stored.privateKey);
    const verdicts = await unauthenticSigningKeys(prisma);
    expect(verdicts).toEqual([
      {
        kid,
        reason: expect.stringMatching(
          /public key is not the public half of its stored private key/,
        ),
      },
    ]);
    expect((await publicJwks()).keys.map((k) => k.kid)).toEqual([genuine]);
    // Judged authentic once, then altered in place: judged again, not cached.
    const other = parseSigningKey(pemOfNewKey());
    await prisma.signingKey.update({
      where: { kid: genuine },
      data: { publicJwk: { kty: 'OKP', crv: 'Ed25519', x: other.x } },
    });
    expect((await publicJwks()).keys).toEqual([]);
    // …and the active key no longer signs: what it signed would not verify with what is published.
    forgetActiveSigningKey();
    await expect(signJws({ a: 1 })).rejects.toMatchObject({ code: 'signing_key_unreadable' });
  });

  it('keys made by the deployment stay authentic: generated, imported from SIGNING_KEY, rotated and retired', async () => {
    const prisma = await testDb();
    const { kid: generated } = await ensureSigningKey(prisma, null);
    const { kid: imported } = await ensureSigningKey(prisma, parseSigningKey(pemOfNewKey()));
    const { kid: rotated } = await rotateSigningKey(prisma, { kind: 'cli' }, { fromEnv: false });
    expect(await unauthenticSigningKeys(prisma)).toEqual([]);
    expect(new Set((await publicJwks()).keys.map((k) => k.kid))).toEqual(
      new Set([generated, imported, rotated]),
    );
    // Retired keys keep their encrypted private key: that is what proves them.
    const rows = await prisma.signingKey.findMany({ select: { privateKey: true } });
    expect(rows.every((r) => r.privateKey.startsWith('enc1:'))).toBe(true);
  });
});
