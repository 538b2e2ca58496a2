import 'server-only';
import type { JSONWebKeySet } from 'jose';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { checkedSigningKeys } from './authentic';
import type { PublicSigningJwk } from './key-material';

/**
 * The JWKS served at /.well-known/jwks.json and trusted by every verifier
 * in the app: every authentic key this deployment has signed with, active
 * and retired (rows are never deleted), so that a receipt or tree head
 * signed before a rotation still verifies. A row planted in SigningKey is
 * left out (authentic.ts says why). Only the public members; `use: 'sig'`
 * and `alg` say what each key is for.
 */
export async function publicJwksOf(prisma: PrismaClient): Promise<JSONWebKeySet> {
  // The active key first: a verifier that tries keys in order finds it at once.
  const keys = (await checkedSigningKeys(prisma))
    .filter((k) => k.authentic)
    .map(
      (k): PublicSigningJwk => ({
        ...k.publicJwk,
        kid: k.kid,
        alg: k.alg as 'EdDSA',
        use: 'sig',
      }),
    );
  return { keys };
}
