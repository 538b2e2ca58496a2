import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { linkOidcUser, userIdForOidcSubject } from '@/lib/server/auth/oidc';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

describe('SSO (OIDC) sign-in links to existing users only', () => {
  beforeEach(truncateAll);
  afterAll(closeTestDb);

  it('links by verified email on first sign-in, then by subject', async () => {
    const prisma = await testDb();
    const { id } = await prisma.user.create({
      data: { email: 'ana@example.com', roles: ['reviewer'] },
    });
    expect(
      await linkOidcUser({ subject: 'idp|1', email: 'Ana@Example.com', emailVerified: true }),
    ).toEqual({ ok: true, userId: id });
    expect(await userIdForOidcSubject('idp|1')).toBe(id);
    // Later the IdP may change the email: the subject still finds the user.
    expect(await linkOidcUser({ subject: 'idp|1', email: 'new@example.com' })).toEqual({
      ok: true,
      userId: id,
    });
    const events = await prisma.auditEvent.findMany({ select: { action: true } });
    expect(events).toEqual([{ action: 'user.sso_linked' }]);
  });

  it('never creates users: an unknown identity is refused with a clear code', async () => {
    const prisma = await testDb();
    expect(
      await linkOidcUser({ subject: 'idp|2', email: 'stranger@example.com', emailVerified: true }),
    ).toEqual({ ok: false, code: 'sso_unknown_user' });
    expect(await prisma.user.count()).toBe(0);
  });

  it('does not link by an unverified email, nor take over an account linked to another subject', async () => {
    const prisma = await testDb();
    await prisma.user.create({ data: { email: 'ana@example.com', roles: ['admin'] } });
    await prisma.user.create({
      data: { email: 'bo@example.com', roles: ['admin'], oidcSubject: 'idp|bo' },
    });
    expect(
      await linkOidcUser({ subject: 'idp|x', email: 'ana@example.com', emailVerified: false }),
    ).toEqual({ ok: false, code: 'sso_unknown_user' });
    expect(
      await linkOidcUser({ subject: 'idp|y', email: 'bo@example.com', emailVerified: true }),
    ).toEqual({ ok: false, code: 'sso_unknown_user' });
    const linked = await prisma.user.findMany({ where: { oidcSubject: { not: null } } });
    expect(linked.map((u) => u.oidcSubject)).toEqual(['idp|bo']);
  });

  it('refuses a disabled account', async () => {
    const prisma = await testDb();
    await prisma.user.create({
      data: {
        email: 'off@example.com',
        roles: ['reviewer'],
        disabled: true,
        oidcSubject: 'idp|off',
      },
    });
    expect(await linkOidcUser({ subject: 'idp|off' })).toEqual({
      ok: false,
      code: 'sso_account_disabled',
    });
  });
});
