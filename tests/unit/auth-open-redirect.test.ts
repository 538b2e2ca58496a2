import { describe, expect, it } from 'vitest';
import { localPath, relativeRedirect, safeNextPath } from '@/lib/server/auth/redirects';

/**
 * Open redirect after sign-in: every `next` is resolved with the URL parser
 * and only a normalized same-origin path goes out. Each attack string below
 * once reached `Location`/`x-action-redirect` as a path a browser read as
 * protocol-relative (`//evil.example`), or as non-ASCII text (a 500).
 */

const ATTACKS = [
  '/.//evil.example',
  '/./\\evil.example',
  '/a/..//evil.example/phish',
  '/%2e//evil.example',
  '/%2E/%2E//evil.example',
  '/a/../..//evil.example',
  '/\t/evil.example',
  '/\\/evil.example',
  '//evil.example',
  '/\\evil.example',
  '///evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  '\\\\evil.example',
  '/sign-in/.././/evil.example',
];

describe('safeNextPath: a next that leaves the site falls back to /', () => {
  it.each(ATTACKS)('%j', (raw) => {
    const out = safeNextPath(raw);
    expect(out).toBe('/');
  });

  it('no attack string resolves off-site from what it returns', () => {
    for (const raw of ATTACKS) {
      const out = safeNextPath(raw);
      expect(new URL(out, 'http://app.test').origin).toBe('http://app.test');
      expect(out).not.toMatch(/^\/[/\\]/);
    }
  });
});

describe('safeNextPath: local paths come back normalized', () => {
  it.each([
    ['/users?x=1', '/users?x=1'],
    ['/a/../users', '/users'],
    ['/./users', '/users'],
    ['/%2e/users', '/users'],
    ['/audit?host=a#frag', '/audit?host=a'],
    // Non-ASCII is percent-encoded: safe in a header, same page in the browser.
    ['/。evil', '/%E3%80%82evil'],
    ['/é', '/%C3%A9'],
    ['/audit?q=é', '/audit?q=%C3%A9'],
    // An encoded slash is not a separator: this stays a path on this site.
    ['/.%2f/evil.example', '/.%2f/evil.example'],
  ])('%j → %j', (raw, expected) => {
    expect(safeNextPath(raw)).toBe(expected);
  });

  it('returns only ASCII', () => {
    for (const raw of ['/。evil', '/é', '/users?name=Zoë', '/ü/../x']) {
      expect(safeNextPath(raw)).toMatch(/^[\x21-\x7e]+$/);
    }
  });

  it('refuses sign-in and API targets, also when reached through dot segments', () => {
    for (const raw of ['/sign-in', '/x/../sign-in?next=/', '/api/me', '/%2e/api/auth/signout']) {
      expect(safeNextPath(raw)).toBe('/');
    }
  });

  it('uses the given fallback', () => {
    expect(safeNextPath('/.//evil.example', '/profile')).toBe('/profile');
  });
});

describe('relativeRedirect (the Auth.js redirect callback, SSO included)', () => {
  const base = 'http://localhost:3000';
  it.each(ATTACKS)('%j → /', (raw) => {
    expect(relativeRedirect(raw, base)).toBe('/');
  });

  it('keeps same-origin targets as normalized paths', () => {
    expect(relativeRedirect('http://localhost:3000/a/..//users?a=1', base)).toBe('/');
    expect(relativeRedirect('http://localhost:3000/a/../users?a=1', base)).toBe('/users?a=1');
    expect(relativeRedirect('http://localhost:3000/é', base)).toBe('/%C3%A9');
    expect(relativeRedirect('/sign-in?error=sso_unknown_user', base)).toBe(
      '/sign-in?error=sso_unknown_user',
    );
  });

  it('reads a scheme-relative URL of the same scheme as a path, like browsers do', () => {
    expect(relativeRedirect('http:evil.example', base)).toBe('/evil.example');
  });

  it('drops other origins and other ports', () => {
    expect(relativeRedirect('http://localhost:3001/users', base)).toBe('/');
    expect(relativeRedirect('https://localhost:3000/users', base)).toBe('/');
  });

  it('localPath is null for non-strings and oversize input', () => {
    expect(localPath(42)).toBeNull();
    expect(localPath(`/${'a'.repeat(5000)}`)).toBeNull();
  });
});
