import 'server-only';
import canonicalize from 'canonicalize';
import {
  CompactSign,
  compactVerify,
  createLocalJWKSet,
  importJWK,
  type JSONWebKeySet,
  type CompactJWSHeaderParameters,
} from 'jose';
import { db } from '../db';
import { SigningKeyError } from './errors';
import { keyIdOf, SIGNING_ALG } from './key-material';
import { configuredSigningKey, ensureSigningKey, readActiveSigningKey } from './keys';
import { publicJwksOf } from './publish';

/**
 * Compact JWS (RFC 7515) with the deployment's active key, for receipts and
 * tree heads. The decrypted key is kept in this process for a few seconds:
 * no query per signature, and a rotation made by another process is picked
 * up within ACTIVE_KEY_TTL_MS.
 */

export const ACTIVE_KEY_TTL_MS = 10_000;

type ActiveKey = { kid: string; key: CryptoKey | Uint8Array; until: number };

const g = globalThis as unknown as { __checkpointSigningKey?: Promise<ActiveKey> };

async function loadActiveKey(): Promise<ActiveKey> {
  const prisma = await db();
  // Boot ensures a key; a process that signs before boot did (a script, a
  // test) gets the same first-start treatment rather than an error.
  const active =
    (await readActiveSigningKey(prisma)) ??
    (await ensureSigningKey(prisma).then(() => readActiveSigningKey(prisma)));
  if (!active) throw new Error('no active signing key after ensureSigningKey');
  // A process started with SIGNING_KEY signs with that key or not at all: the
  // active key changing under it (SIGNING_KEY_REPLACES elsewhere) stops it.
  const own = configuredSigningKey();
  if (own && (await keyIdOf(own)) !== active.kid) {
    throw new SigningKeyError(
      'signing_key_conflict',
      `this process's SIGNING_KEY is not the active signing key ${active.kid}: restart it with the active key`,
    );
  }
  const key = await importJWK({ ...active.jwk, alg: SIGNING_ALG }, SIGNING_ALG);
  return { kid: active.kid, key, until: Date.now() + ACTIVE_KEY_TTL_MS };
}

async function activeKey(): Promise<ActiveKey> {
  const cached = g.__checkpointSigningKey;
  if (cached) {
    const hit = await cached.catch(() => null);
    if (hit && hit.until > Date.now()) return hit;
  }
  const loading = loadActiveKey();
  g.__checkpointSigningKey = loading;
  // A failure (unreadable key, database down) is not cached: the next call tries again.
  loading.catch(() => {
    if (g.__checkpointSigningKey === loading) g.__checkpointSigningKey = undefined;
  });
  return loading;
}

/** Forgets the cached key (after a rotation in this process). */
export function forgetActiveSigningKey(): void {
  g.__checkpointSigningKey = undefined;
}

/**
 * Signs `payload` (its RFC 8785 canonical JSON, so equal objects give equal
 * bytes) as a compact JWS with protected header `{alg: 'EdDSA', kid, typ}`.
 * Throws `signing_key_unreadable` rather than signing with any other key.
 */
export async function signJws(payload: object, opts: { typ?: string } = {}): Promise<string> {
  const text = canonicalize(payload);
  if (text === undefined) throw new TypeError('signJws: the payload is not JSON');
  const { kid, key } = await activeKey();
  const header: CompactJWSHeaderParameters = { alg: SIGNING_ALG, kid };
  if (opts.typ) header.typ = opts.typ;
  return new CompactSign(new TextEncoder().encode(text)).setProtectedHeader(header).sign(key);
}

/**
 * Verifies a compact JWS against a JWKS (such as /.well-known/jwks.json):
 * EdDSA only, the key chosen by the header's kid. Throws jose's errors
 * (`ERR_JWS_SIGNATURE_VERIFICATION_FAILED`, `ERR_JWKS_NO_MATCHING_KEY`, …)
 * when it does not verify.
 */
export async function verifyJws(
  jws: string,
  jwks: JSONWebKeySet,
): Promise<{ payload: unknown; header: CompactJWSHeaderParameters }> {
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks), {
    algorithms: [SIGNING_ALG],
  });
  return { payload: JSON.parse(new TextDecoder().decode(payload)), header: protectedHeader };
}

/** The published keys (active and retired) as a JWKS. */
export async function publicJwks(): Promise<JSONWebKeySet> {
  return publicJwksOf(await db());
}
