import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/server/config';
import { verifyJws } from '@/lib/server/signing/jws';
import { keyIdOf, parseSigningKey } from '@/lib/server/signing/key-material';

/**
 * SIGNING_KEY parsing, key ids and verification against the RFC 8037
 * Appendix A test vectors (values from the RFC, not from this code).
 */

// RFC 8037 A.1 (private key) and A.2 (its public half).
const RFC_JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
} as const;
// RFC 8037 A.3: the RFC 7638 thumbprint of that key.
const RFC_KID = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
// RFC 8037 A.4: "Example of Ed25519 signing" under {"alg":"EdDSA"}.
const RFC_JWS =
  'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.' +
  'hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg';

const rfcPem = createPrivateKey({ key: RFC_JWK, format: 'jwk' })
  .export({ type: 'pkcs8', format: 'pem' })
  .toString();
const other = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
const rfcJwks = {
  keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC_JWK.x, kid: RFC_KID, alg: 'EdDSA', use: 'sig' }],
};

describe('SIGNING_KEY', () => {
  it('reads a private JWK and a PKCS#8 PEM of the same key as the same key, with the RFC 8037 kid', async () => {
    const fromJwk = parseSigningKey(JSON.stringify(RFC_JWK));
    const fromPem = parseSigningKey(rfcPem);
    expect(fromJwk).toEqual(RFC_JWK);
    expect(fromPem).toEqual(RFC_JWK);
    expect(await keyIdOf(fromPem)).toBe(RFC_KID);
  });

  it('reads a PEM carried on one line with \\n escapes, and drops JWK members that are not the key', () => {
    expect(parseSigningKey(rfcPem.trim().replaceAll('\n', '\\n'))).toEqual(RFC_JWK);
    const extra = JSON.stringify({ ...RFC_JWK, kid: 'mine', alg: 'EdDSA', use: 'sig' });
    expect(parseSigningKey(extra)).toEqual(RFC_JWK);
  });

  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  it.each([
    ['a public JWK', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: RFC_JWK.x }), /public JWK/],
    ['a P-256 JWK', JSON.stringify(ec.privateKey.export({ format: 'jwk' })), /Ed25519/],
    ['an RSA PEM', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), /Ed25519/],
    ['an EC PEM', ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), /Ed25519/],
    [
      'a public PEM',
      ec.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      /PKCS#8 private key/,
    ],
    ['x of another key', JSON.stringify({ ...RFC_JWK, x: other.x }), /not the public half/],
    ['a JWK without x', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', d: RFC_JWK.d }), /"x"/],
    ['another alg', JSON.stringify({ ...RFC_JWK, alg: 'ES256' }), /EdDSA/],
    ['broken JSON', '{"kty":', /valid JSON/],
    ['a password', 'correct horse battery staple', /PKCS#8 PEM private key or a private JWK/],
  ])('refuses %s', (_what, value, message) => {
    expect(() => parseSigningKey(value)).toThrow(message);
  });

  it('is checked with the rest of the configuration, the error naming the variable but not the key', () => {
    const bad = JSON.stringify({ ...RFC_JWK, crv: 'Ed448' });
    let caught: unknown;
    try {
      parseConfig({ SIGNING_KEY: bad });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).code).toBe('config_invalid');
    expect((caught as Error).message).toMatch(/SIGNING_KEY: must be an Ed25519 key/);
    expect((caught as Error).message).not.toContain(RFC_JWK.d);
    expect(parseConfig({ SIGNING_KEY: rfcPem }).SIGNING_KEY).toBe(rfcPem);
    expect(parseConfig({}).SIGNING_KEY).toBeUndefined();
  });
});

describe('verifyJws', () => {
  it('verifies the RFC 8037 A.4 signature against a JWKS holding the A.2 key', async () => {
    // The A.4 payload is text, not JSON: a good signature gets as far as the
    // JSON parse (a bad one would stop at ERR_JWS_SIGNATURE_VERIFICATION_FAILED).
    const failure = await verifyJws(RFC_JWS, rfcJwks).then(
      () => null,
      (err: Error) => err.name,
    );
    expect(failure).toBe('SyntaxError');
  });

  it('refuses a changed payload, a changed signature and an unknown key', async () => {
    const [h, p, s] = RFC_JWS.split('.');
    const otherPayload = Buffer.from('Example of Ed25519 signinG').toString('base64url');
    await expect(verifyJws(`${h}.${otherPayload}.${s}`, rfcJwks)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    const flipped = `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    await expect(verifyJws(`${h}.${p}.${flipped}`, rfcJwks)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    const stranger = { keys: [{ ...rfcJwks.keys[0], x: other.x, kid: 'other' }] };
    await expect(verifyJws(RFC_JWS, stranger)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });
});
