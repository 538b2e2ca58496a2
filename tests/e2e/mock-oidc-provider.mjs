#!/usr/bin/env node
// A minimal OpenID Connect provider for the end-to-end tests (authorization
// code flow with PKCE, RS256 ID tokens), so that the SSO sign-in runs for
// real against Auth.js's generic OIDC provider. Test use only: it signs in
// whoever types an email on its page. Plain node:http + node:crypto.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';

const port = Number(process.env.MOCK_OIDC_PORT ?? 3211);
const issuer = `http://127.0.0.1:${port}`;
const clientId = process.env.MOCK_OIDC_CLIENT_ID ?? 'checkpoint-e2e';
const clientSecret = process.env.MOCK_OIDC_CLIENT_SECRET ?? 'checkpoint-e2e-secret';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const kid = randomBytes(6).toString('hex');
const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

/** code → what the token endpoint needs to answer it. */
const codes = new Map();
const b64url = (v) =>
  Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function idToken(claims) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url({ alg: 'RS256', typ: 'JWT', kid });
  const payload = b64url({ iss: issuer, aud: clientId, iat: now, exp: now + 300, ...claims });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey);
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

/** The subject is derived from the email, so a person keeps one subject. */
const subjectFor = (email) =>
  `mock|${createHash('sha256').update(email).digest('hex').slice(0, 16)}`;

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readForm(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  try {
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize' && req.method === 'GET') {
      if (url.searchParams.get('client_id') !== clientId)
        return json(res, 400, { error: 'invalid_client' });
      const hidden = [...url.searchParams]
        .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><title>Mock identity provider</title>
<h1>Mock identity provider</h1>
<form method="post" action="/authorize">${hidden}
<label>Email <input name="email" type="email" required></label>
<label><input name="email_verified" type="checkbox" value="true" checked> Email verified</label>
<button type="submit">Continue</button></form>`);
    }
    if (url.pathname === '/authorize' && req.method === 'POST') {
      const form = await readForm(req);
      const email = form.get('email') ?? '';
      const code = randomBytes(16).toString('base64url');
      codes.set(code, {
        email,
        emailVerified: form.get('email_verified') === 'true',
        nonce: form.get('nonce'),
        challenge: form.get('code_challenge'),
        redirectUri: form.get('redirect_uri'),
      });
      const back = new URL(form.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      if (form.get('state')) back.searchParams.set('state', form.get('state'));
      back.searchParams.set('iss', issuer);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = await readForm(req);
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64')
            .toString()
            .split(':')
            .map(decodeURIComponent)
        : [form.get('client_id'), form.get('client_secret')];
      if (basic[0] !== clientId || basic[1] !== clientSecret) {
        return json(res, 401, { error: 'invalid_client' });
      }
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !grant ||
        grant.redirectUri !== form.get('redirect_uri') ||
        (grant.challenge && grant.challenge !== challenge)
      ) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      const claims = {
        sub: subjectFor(grant.email),
        email: grant.email,
        email_verified: grant.emailVerified,
      };
      const accessToken = b64url(claims);
      return json(res, 200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 300,
        scope: 'openid email profile',
        id_token: idToken({ ...claims, ...(grant.nonce ? { nonce: grant.nonce } : {}) }),
      });
    }
    if (url.pathname === '/userinfo') {
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      return json(res, 200, JSON.parse(Buffer.from(token, 'base64url').toString() || '{}'));
    }
    json(res, 404, { error: 'not_found' });
  } catch (err) {
    json(res, 500, { error: 'server_error', error_description: String(err) });
  }
});

server.listen(port, '127.0.0.1', () => console.log(`mock OIDC provider at ${issuer}`));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
