import { describe, expect, it } from 'vitest';
import {
  API_POLICY,
  baseSecurityHeaders,
  cameOverHttps,
  newNonce,
  originOf,
  pagePolicy,
} from '@/lib/server/http/security-headers';

/** The directives of a policy, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name as string, values];
    }),
  );
}

const base = { nonce: 'abc123==', dev: false, https: false, formTargets: [] };

describe('the page Content-Security-Policy', () => {
  it('refuses every framer and runs only nonced scripts', () => {
    const d = directives(pagePolicy(base));
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('script-src')).toEqual(["'self'", "'nonce-abc123=='", "'strict-dynamic'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'self'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('img-src')).toEqual(["'self'", 'data:']);
    // A nonce in style-src would switch 'unsafe-inline' off for style attributes.
    expect(d.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(d.has('upgrade-insecure-requests')).toBe(false);
  });

  it("allows 'unsafe-eval' in development only", () => {
    expect(pagePolicy(base)).not.toContain('unsafe-eval');
    expect(directives(pagePolicy({ ...base, dev: true })).get('script-src')).toContain(
      "'unsafe-eval'",
    );
  });

  it('lets forms reach the identity provider, and upgrades subresources over https', () => {
    const d = directives(
      pagePolicy({ ...base, https: true, formTargets: ['https://idp.example.com'] }),
    );
    expect(d.get('form-action')).toEqual(["'self'", 'https://idp.example.com']);
    expect(d.has('upgrade-insecure-requests')).toBe(true);
  });

  it('uses a fresh 128-bit nonce each time', () => {
    const a = newNonce();
    expect(Buffer.from(a, 'base64')).toHaveLength(16);
    expect(newNonce()).not.toBe(a);
  });
});

describe('the other security headers', () => {
  it('deny framing and sniffing everywhere; HSTS only when asked for', () => {
    const plain = baseSecurityHeaders(false);
    expect(plain).toMatchObject({
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
    });
    expect(plain['Permissions-Policy']).toContain('camera=()');
    expect(plain['Permissions-Policy']).toContain('microphone=()');
    expect(plain['Permissions-Policy']).toContain('geolocation=()');
    expect(plain).not.toHaveProperty('Strict-Transport-Security');
    expect(baseSecurityHeaders(true)['Strict-Transport-Security']).toBe('max-age=31536000');
  });

  it('the API policy runs nothing and cannot be framed', () => {
    const d = directives(API_POLICY);
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.has('script-src')).toBe(false);
  });

  it.each([
    ['https:', null, true],
    ['http:', 'https', true],
    ['http:', 'HTTPS, http', true],
    ['http:', 'http', false],
    ['http:', null, false],
  ] as const)('protocol %s with X-Forwarded-Proto %s is https: %s', (protocol, fwd, want) => {
    expect(cameOverHttps(protocol, fwd)).toBe(want);
  });

  it('takes the origin of the issuer URL, and nothing from a bad one', () => {
    expect(originOf('https://idp.example.com/realms/x')).toBe('https://idp.example.com');
    expect(originOf(undefined)).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });
});
