import { describe, expect, it } from 'vitest';
import { relativeRedirect, safeNextPath } from '@/lib/server/auth/redirects';
import { AREAS, areasFor, canUseArea, hasAnyRole, parseRoles } from '@/lib/server/auth/roles';

describe('post-sign-in redirects stay on this site', () => {
  it('keeps local paths with their query', () => {
    expect(safeNextPath('/users?x=1')).toBe('/users?x=1');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    'users',
    '/users\r\nSet-Cookie: a=b',
    '/sign-in?next=/users',
    '/api/auth/signout',
    '',
    42,
  ])('refuses %j', (raw) => {
    expect(safeNextPath(raw)).toBe('/');
  });

  it('turns same-origin absolute URLs into paths and drops other origins', () => {
    expect(relativeRedirect('http://localhost:3000/users?a=1', 'http://localhost:3000')).toBe(
      '/users?a=1',
    );
    expect(relativeRedirect('http://evil.example/users', 'http://localhost:3000')).toBe('/');
    expect(relativeRedirect('//evil.example/users', 'http://localhost:3000')).toBe('/');
    expect(relativeRedirect('/sign-in?error=sso_unknown_user', 'http://x')).toBe(
      '/sign-in?error=sso_unknown_user',
    );
  });
});

describe('roles', () => {
  it('admins may use every area; others only their own', () => {
    expect(areasFor(['admin'])).toEqual(['approvals', 'audit', 'hosts', 'users']);
    expect(areasFor(['reviewer'])).toEqual(['approvals']);
    expect(areasFor(['auditor'])).toEqual(['audit']);
    expect(areasFor(['reviewer', 'auditor'])).toEqual(['approvals', 'audit']);
    expect(areasFor([])).toEqual([]);
    expect(canUseArea(['reviewer'], 'users')).toBe(false);
    expect(canUseArea(['auditor'], 'hosts')).toBe(false);
  });

  it('every area lists its roles explicitly, admin included (never an empty list)', () => {
    for (const area of Object.values(AREAS)) {
      expect(area.roles.length).toBeGreaterThan(0);
      expect(area.roles).toContain('admin');
    }
  });

  it('hasAnyRole: admin passes every check, empty roles pass none', () => {
    expect(hasAnyRole(['admin'], ['auditor'])).toBe(true);
    expect(hasAnyRole(['reviewer'], ['auditor'])).toBe(false);
    expect(hasAnyRole([], ['reviewer'])).toBe(false);
  });

  it('parseRoles refuses unknown role names and orders the rest', () => {
    expect(parseRoles(['auditor', 'admin', 'auditor'])).toEqual(['admin', 'auditor']);
    expect(parseRoles(['root'])).toBeNull();
    expect(parseRoles([])).toEqual([]);
  });
});
