import { route } from '@/lib/server/http/route';
import { publicJwks } from '@/lib/server/signing/jws';

/**
 * GET /.well-known/jwks.json: the deployment's public signing keys (RFC 7517
 * JWK Set), active and retired, which receipts and signed tree heads verify
 * against. Public, no sign-in (proxy.ts lets it through). Cached five
 * minutes: a verifier that meets a kid it does not hold (a rotation since)
 * fetches again.
 */
export const dynamic = 'force-dynamic';

export const GET = route({ auth: 'public' }, async () =>
  Response.json(await publicJwks(), {
    headers: {
      'content-type': 'application/jwk-set+json',
      'cache-control': 'public, max-age=300',
      // Public keys only: a verifier in a browser on another origin may fetch them.
      'access-control-allow-origin': '*',
    },
  }),
);
