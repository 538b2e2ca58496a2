import 'server-only';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { moduleLogger } from '../logger';
import { decryptSecret, SecretDecryptError } from '../webhooks/encryption';
import { keyIdOf, parseSigningKey, SIGNING_ALG, SIGNING_CRV } from './key-material';

/**
 * Which SigningKey rows this deployment made (issue 13 item 1). A row is
 * only a claim: anyone with a database shell can INSERT a public JWK of
 * their own, sign tree heads and receipts with its private half, and a
 * deployment that published every row would then vouch for them. A key is
 * authentic when its stored private key decrypts under this deployment's
 * APP_ENCRYPTION_KEY (AES-256-GCM: without the app's environment nobody can
 * produce such a ciphertext) to an Ed25519 key whose public half, derived
 * here, is the row's public JWK and whose thumbprint is the row's kid. Only
 * authentic keys are published in the JWKS and trusted for verification.
 *
 * Keys imported from SIGNING_KEY are stored the same way (encrypted, keys.ts
 * activate), so one rule covers generated, rotated and imported keys, in
 * every process that shares the APP_ENCRYPTION_KEY (checked at start).
 * Retired keys keep their encrypted private key (rows are never deleted,
 * rotation only sets retiredAt), so they stay authentic and keep verifying.
 */

const log = moduleLogger('signing');

type Row = {
  kid: string;
  alg: string;
  publicJwk: unknown;
  privateKey: string;
  createdAt: Date;
  retiredAt: Date | null;
};

export type CheckedSigningKey = {
  kid: string;
  alg: string;
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  retiredAt: Date | null;
} & ({ authentic: true } | { authentic: false; reason: string });

/** A row this deployment did not make, and why. */
export type UnauthenticKey = { kid: string; reason: string };

/**
 * Verdicts per process, keyed by everything the verdict depends on, so a row
 * changed in place (another public key, another ciphertext) is judged again
 * and no invalidation on rotation is needed: a new row is a new key.
 */
type Verdict = { ok: true } | { ok: false; reason: string };
const g = globalThis as unknown as { __checkpointKeyVerdicts?: Map<string, Verdict> };

function verdicts(): Map<string, Verdict> {
  g.__checkpointKeyVerdicts ??= new Map();
  return g.__checkpointKeyVerdicts;
}

function cacheKey(row: Row): string {
  return JSON.stringify([row.kid, row.alg, row.publicJwk, row.privateKey]);
}

function storedPublic(jwk: unknown): { kty: string; crv: string; x: string } | null {
  const j = jwk as { kty?: unknown; crv?: unknown; x?: unknown } | null;
  if (!j || typeof j !== 'object') return null;
  if (typeof j.kty !== 'string' || typeof j.crv !== 'string' || typeof j.x !== 'string') {
    return null;
  }
  return { kty: j.kty, crv: j.crv, x: j.x };
}

/** Why the row is not a key this deployment made, or null when it is. */
async function problemOf(row: Row): Promise<string | null> {
  const pub = storedPublic(row.publicJwk);
  if (row.alg !== SIGNING_ALG || !pub || pub.kty !== 'OKP' || pub.crv !== SIGNING_CRV) {
    return 'its stored public key is not an Ed25519 (EdDSA) key';
  }
  let plain: string;
  try {
    plain = decryptSecret(row.privateKey);
  } catch (err) {
    if (!(err instanceof SecretDecryptError)) throw err;
    return "its stored private key does not decrypt with this deployment's APP_ENCRYPTION_KEY (the row was not made by this deployment)";
  }
  let derivedX: string | undefined;
  try {
    const jwk = parseSigningKey(plain);
    const priv = createPrivateKey({ key: jwk, format: 'jwk' });
    derivedX = createPublicKey(priv).export({ format: 'jwk' }).x;
  } catch {
    return 'its stored private key decrypts to something that is not an Ed25519 private key';
  }
  if (derivedX !== pub.x) {
    return 'its published public key is not the public half of its stored private key';
  }
  if ((await keyIdOf(pub)) !== row.kid) {
    return 'its key id is not the thumbprint of its public key';
  }
  return null;
}

async function verdictOf(row: Row, seen: Map<string, Verdict>): Promise<Verdict> {
  const key = cacheKey(row);
  const known = verdicts().get(key);
  if (known) {
    seen.set(key, known);
    return known;
  }
  const problem = await problemOf(row);
  const verdict: Verdict = problem ? { ok: false, reason: problem } : { ok: true };
  // Once per row version and process: the page, the JWKS and the verifier all ask.
  if (!verdict.ok) {
    log.warn(
      { kid: row.kid, reason: verdict.reason },
      'a SigningKey row is not authentic: it is neither published nor trusted',
    );
  }
  seen.set(key, verdict);
  return verdict;
}

/** Every stored key with its verdict, the active one first, then newest first. */
export async function checkedSigningKeys(prisma: PrismaClient): Promise<CheckedSigningKey[]> {
  const rows: Row[] = await prisma.signingKey.findMany({
    select: {
      kid: true,
      alg: true,
      publicJwk: true,
      privateKey: true,
      createdAt: true,
      retiredAt: true,
    },
    orderBy: { createdAt: 'desc' },
  });
  const seen = new Map<string, Verdict>();
  const out: CheckedSigningKey[] = [];
  for (const row of rows) {
    const v = await verdictOf(row, seen);
    const pub = storedPublic(row.publicJwk);
    const base = {
      kid: row.kid,
      alg: row.alg,
      publicJwk: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: pub?.x ?? '' },
      retiredAt: row.retiredAt,
    };
    out.push(v.ok ? { ...base, authentic: true } : { ...base, authentic: false, reason: v.reason });
  }
  // Forget verdicts of row versions no longer stored: the cache stays as small as the table.
  const cache = verdicts();
  for (const key of cache.keys()) if (!seen.has(key)) cache.delete(key);
  for (const [key, v] of seen) cache.set(key, v);
  return [...out.filter((k) => !k.retiredAt), ...out.filter((k) => k.retiredAt)];
}

/** The stored keys that are not authentic (normally none). */
export async function unauthenticSigningKeys(prisma: PrismaClient): Promise<UnauthenticKey[]> {
  return (await checkedSigningKeys(prisma)).flatMap((k) =>
    k.authentic ? [] : [{ kid: k.kid, reason: k.reason }],
  );
}

/** The sentence a verifier says about something signed by a key that is not authentic. */
export function notAuthenticDetail(key: UnauthenticKey): string {
  return `it is signed by key ${key.kid}, which is stored in SigningKey but is not authentic (${key.reason}), so it is not published and not trusted`;
}
