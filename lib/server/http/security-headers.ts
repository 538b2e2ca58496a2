import 'server-only';
import { randomBytes } from 'node:crypto';

/**
 * The response headers every page and API answer carries (proxy.ts sets
 * them; next.config.js covers the static files the proxy does not see).
 * Incident: a same-site page on another port framed a ticket and one click
 * approved it, so framing is refused twice over (`frame-ancestors 'none'`
 * for current browsers, `X-Frame-Options: DENY` for old ones).
 */

export type PolicyOptions = {
  /** Per-request nonce for pages; Next reads it from the request's CSP and stamps its own scripts. */
  nonce: string;
  /** `next dev` only: React rebuilds server error stacks with eval. */
  dev: boolean;
  /** This request came over https: upgrade stray http subresources too. */
  https: boolean;
  /**
   * Origins a form may post (or be redirected) to besides this one: the
   * identity provider, where SSO sign-in lands when the form submits before
   * hydration (Chromium applies form-action to the redirect as well).
   */
  formTargets: readonly string[];
};

/** A fresh CSP nonce: 128 random bits. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The policy of an HTML page rendered by Next. */
export function pagePolicy(o: PolicyOptions): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': chunks loaded by Next's nonced scripts are trusted; nothing else is.
    `script-src 'self' 'nonce-${o.nonce}' 'strict-dynamic'${o.dev ? " 'unsafe-eval'" : ''}`,
    // React writes style attributes (charts); a nonce here would disable 'unsafe-inline'.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${["'self'", ...o.formTargets].join(' ')}`,
    "frame-ancestors 'none'",
    ...(o.https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/**
 * The policy of an API answer: data, never a document that runs anything.
 * Inline styles stay allowed for the few HTML pages Auth.js itself serves
 * under /api/auth (sign-out confirmation), which then post back here.
 */
export const API_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'payment=()',
  'usb=()',
].join(', ');

/** One year; no includeSubDomains: other services on sibling names are not ours to pin. */
export const HSTS = 'max-age=31536000';

/**
 * The headers besides the CSP, the same on every answer. `hsts` when the
 * request came over https or the public URL (APP_URL) is https: browsers
 * ignore the header on plain http, so a local http request loses nothing.
 */
export function baseSecurityHeaders(hsts: boolean): Record<string, string> {
  return {
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
    ...(hsts ? { 'Strict-Transport-Security': HSTS } : {}),
  };
}

/**
 * Whether this request reached us over https, as seen or as the
 * TLS-terminating proxy in front reports it (X-Forwarded-Proto). A forged
 * header over plain http earns at most an HSTS header the browser ignores
 * and an upgrade of subresources that then fail: nothing an attacker gains.
 */
export function cameOverHttps(protocol: string, forwardedProto: string | null): boolean {
  if (protocol === 'https:') return true;
  return forwardedProto?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** The origin of a configured URL, or null when it is unset or unparseable. */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
