import 'server-only';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

/**
 * The deployment's signing key material: Ed25519 (JWS `alg: EdDSA`, RFC 8037)
 * as JWKs. Generation, thumbprints and signing are jose's; node:crypto only
 * parses what an operator put in SIGNING_KEY (synchronously, so that the
 * configuration check can name a bad variable before anything starts).
 */

export const SIGNING_ALG = 'EdDSA';
export const SIGNING_CRV = 'Ed25519';

/** A private Ed25519 JWK: exactly the members that define the key. */
export type PrivateSigningJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };

/** A published key, as it appears in /.well-known/jwks.json. */
export type PublicSigningJwk = {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
};

/** The public half's members (RFC 7638 §3.2: the ones an OKP thumbprint covers). */
export function publicPart(jwk: PrivateSigningJwk): { kty: 'OKP'; crv: 'Ed25519'; x: string } {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}

/** The key id: the RFC 7638 SHA-256 thumbprint of the public key, base64url. */
export function keyIdOf(jwk: PrivateSigningJwk | { kty: string; crv: string; x: string }) {
  return calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'sha256');
}

/** A fresh Ed25519 key pair from the platform's CSPRNG (WebCrypto, via jose). */
export async function generateSigningJwk(): Promise<PrivateSigningJwk> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, {
    crv: SIGNING_CRV,
    extractable: true,
  });
  return asPrivateJwk(await exportJWK(privateKey));
}

function asPrivateJwk(jwk: { kty?: string; crv?: string; x?: string; d?: string }) {
  if (jwk.kty !== 'OKP' || jwk.crv !== SIGNING_CRV || !jwk.x || !jwk.d) {
    throw new Error('not an Ed25519 private key');
  }
  return { kty: 'OKP', crv: SIGNING_CRV, x: jwk.x, d: jwk.d } satisfies PrivateSigningJwk;
}

/**
 * SIGNING_KEY: a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, also with `\n`
 * escapes as one-line environments carry it) or a private JWK as JSON. Throws
 * an Error whose message says what is wrong, never the key itself.
 */
export function parseSigningKey(raw: string): PrivateSigningJwk {
  const text = raw.trim();
  let key: KeyObject;
  if (text.startsWith('{')) {
    let jwk: Record<string, unknown>;
    try {
      jwk = JSON.parse(text);
    } catch {
      throw new Error('is neither a PEM private key nor valid JSON');
    }
    if (jwk.kty !== 'OKP' || jwk.crv !== SIGNING_CRV) {
      throw new Error('must be an Ed25519 key (a JWK with kty "OKP" and crv "Ed25519")');
    }
    if (typeof jwk.d !== 'string') {
      throw new Error('is a public JWK: the private key (member "d") is needed to sign');
    }
    if (jwk.alg !== undefined && jwk.alg !== SIGNING_ALG && jwk.alg !== SIGNING_CRV) {
      throw new Error(`names alg ${JSON.stringify(jwk.alg)}; Ed25519 keys sign with EdDSA`);
    }
    if (typeof jwk.x !== 'string') throw new Error('is a JWK without its public key (member "x")');
    try {
      key = createPrivateKey({
        key: { kty: 'OKP', crv: SIGNING_CRV, d: jwk.d, x: jwk.x },
        format: 'jwk',
      });
    } catch {
      throw new Error('is not a valid Ed25519 private JWK');
    }
    // Node derives the public half from `d` and ignores `x`; a JWK whose `x`
    // says otherwise is damaged (or two keys spliced together).
    if (createPublicKey(key).export({ format: 'jwk' }).x !== jwk.x) {
      throw new Error('has an "x" that is not the public half of its "d"');
    }
  } else if (text.includes('-----BEGIN')) {
    if (/-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/.test(text) === false) {
      throw new Error('must be a PKCS#8 private key (-----BEGIN PRIVATE KEY-----)');
    }
    try {
      key = createPrivateKey({ key: text.replaceAll('\\n', '\n'), format: 'pem' });
    } catch {
      throw new Error('is not a readable PKCS#8 private key (an encrypted key is not supported)');
    }
  } else {
    throw new Error('must be a PKCS#8 PEM private key or a private JWK (JSON)');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`must be an Ed25519 key, not ${key.asymmetricKeyType ?? 'a symmetric key'}`);
  }
  return asPrivateJwk(key.export({ format: 'jwk' }));
}
