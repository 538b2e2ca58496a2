import 'server-only';
import type { JSONWebKeySet } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { PublicSigningJwk } from './key-material';

/**
 * The JWKS served at /.well-known/jwks.json: every key this deployment has
 * signed with, active and retired (rows are never deleted), so that a
 * receipt or tree head signed before a rotation still verifies. Only the
 * public members; `use: 'sig'` and `alg` say what each key is for.
 */
export async function publicJwksOf(prisma: PrismaClient): Promise<JSONWebKeySet> {
  const rows = await prisma.signingKey.findMany({
    select: { kid: true, alg: true, publicJwk: true, retiredAt: true },
    orderBy: { createdAt: 'desc' },
  });
  // The active key first: a verifier that tries keys in order finds it at once.
  const ordered = [...rows.filter((r) => !r.retiredAt), ...rows.filter((r) => r.retiredAt)];
  const keys = ordered.map((r): PublicSigningJwk => {
    const jwk = r.publicJwk as { kty: 'OKP'; crv: 'Ed25519'; x: string };
    return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: r.kid, alg: r.alg as 'EdDSA', use: 'sig' };
  });
  return { keys };
}
