import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '@/lib/generated/prisma/enums';
import { hashPassword } from '@/lib/server/auth/password';
import {
  createUserSession,
  endSession,
  findActiveSession,
  SESSION_MAX_AGE_S,
} from '@/lib/server/auth/user-sessions';
import { ApiError } from '@/lib/server/http/api-error';
import {
  type Actor,
  changeOwnPassword,
  createUser,
  endOwnSessions,
  resetUserPassword,
  setUserDisabled,
  updateUserRoles,
} from '@/lib/server/users';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * Revocable server-side sessions (UserSession) and the forced change of
 * admin-set and generated passwords.
 */

const PASSWORD = 'first-password-1';

async function seed(email: string, roles: Role[], mustChangePassword = false): Promise<Actor> {
  const prisma = await testDb();
  return prisma.user.create({
    data: { email, roles, passwordHash: await hashPassword(PASSWORD), mustChangePassword },
    select: { id: true, roles: true },
  });
}

const open = (userId: string, method: 'password' | 'sso' = 'password') =>
  createUserSession({ userId, method, userAgent: 'vitest' });

async function sessionIds(userId: string): Promise<string[]> {
  const prisma = await testDb();
  const rows = await prisma.userSession.findMany({ where: { userId }, select: { id: true } });
  return rows.map((r) => r.id).sort();
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('server-side sessions', () => {
  let admin: Actor;
  let user: Actor;
  beforeEach(async () => {
    await truncateAll();
    admin = await seed('admin@example.com', ['admin']);
    user = await seed('rev@example.com', ['reviewer', 'auditor']);
  });
  afterAll(closeTestDb);

  it('a new session is found by its id, with its user, in one lookup', async () => {
    const sid = await open(user.id);
    const active = await findActiveSession(sid, user.id);
    expect(active).toMatchObject({
      sessionId: sid,
      method: 'password',
      mustChangePassword: false,
      user: { id: user.id, email: 'rev@example.com', roles: ['reviewer', 'auditor'] },
    });
    const prisma = await testDb();
    const row = await prisma.userSession.findUniqueOrThrow({ where: { id: sid } });
    expect(row.userAgent).toBe('vitest');
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(SESSION_MAX_AGE_S * 1000);
  });

  it('refuses unknown, malformed, foreign, expired and ended sessions, and disabled users', async () => {
    const sid = await open(user.id);
    expect(await findActiveSession('00000000-0000-0000-0000-000000000000', user.id)).toBeNull();
    expect(await findActiveSession('not-a-uuid', user.id)).toBeNull();
    // A token naming another user than the session's.
    expect(await findActiveSession(sid, admin.id)).toBeNull();
    const later = new Date(Date.now() + SESSION_MAX_AGE_S * 1000 + 1000);
    expect(await findActiveSession(sid, user.id, later)).toBeNull();

    const prisma = await testDb();
    await prisma.user.update({ where: { id: user.id }, data: { disabled: true } });
    expect(await findActiveSession(sid, user.id)).toBeNull();
    await prisma.user.update({ where: { id: user.id }, data: { disabled: false } });
    expect(await findActiveSession(sid, user.id)).not.toBeNull();

    await endSession(sid);
    expect(await findActiveSession(sid, user.id)).toBeNull();
    await endSession(sid); // ending twice is fine
  });

  it("a sign-in clears the user's expired sessions, and only theirs", async () => {
    const past = new Date(Date.now() - 2 * SESSION_MAX_AGE_S * 1000);
    const expired = await createUserSession({ userId: user.id, method: 'password', now: past });
    const othersExpired = await createUserSession({
      userId: admin.id,
      method: 'password',
      now: past,
    });
    const live = await open(user.id);
    expect(await sessionIds(user.id)).toEqual([live]);
    expect(await sessionIds(admin.id)).toEqual([othersExpired]);
    expect(expired).not.toBe(live);
  });

  it('changing your own password ends your other sessions and keeps this one', async () => {
    const here = await open(user.id);
    const elsewhere = await open(user.id);
    const adminSid = await open(admin.id);
    await changeOwnPassword(
      { ...user, sessionId: here },
      { currentPassword: PASSWORD, newPassword: 'second-password-2' },
    );
    expect(await sessionIds(user.id)).toEqual([here]);
    expect(await findActiveSession(elsewhere, user.id)).toBeNull();
    expect(await findActiveSession(here, user.id)).not.toBeNull();
    expect(await sessionIds(admin.id)).toEqual([adminSid]);
  });

  it('a refused password change ends nothing', async () => {
    const here = await open(user.id);
    const elsewhere = await open(user.id);
    const err = await refusal(
      changeOwnPassword(
        { ...user, sessionId: here },
        { currentPassword: 'wrong-password', newPassword: 'second-password-2' },
      ),
    );
    expect(err.details).toMatchObject({ fields: { currentPassword: { code: 'password_wrong' } } });
    expect(await sessionIds(user.id)).toEqual([here, elsewhere].sort());
  });

  it('an admin password reset ends all sessions of the user and forces a change', async () => {
    const a = await open(user.id);
    await open(user.id);
    const adminSid = await open(admin.id);
    await resetUserPassword(admin, user.id, 'admin-chosen-pass-1');
    expect(await sessionIds(user.id)).toEqual([]);
    expect(await findActiveSession(a, user.id)).toBeNull();
    expect(await sessionIds(admin.id)).toEqual([adminSid]);

    const next = await findActiveSession(await open(user.id), user.id);
    expect(next?.mustChangePassword).toBe(true);
    // Signed in through SSO, the admin-set password played no part: no forced change.
    const sso = await findActiveSession(await open(user.id, 'sso'), user.id);
    expect(sso?.mustChangePassword).toBe(false);
  });

  it('disabling a user ends all their sessions; enabling opens none', async () => {
    await open(user.id);
    await open(user.id);
    await setUserDisabled(admin, user.id, true);
    expect(await sessionIds(user.id)).toEqual([]);
    await setUserDisabled(admin, user.id, false);
    expect(await sessionIds(user.id)).toEqual([]);
  });

  it('removing a role ends all sessions of the user; only adding one does not', async () => {
    const sid = await open(user.id);
    await updateUserRoles(admin, user.id, ['reviewer', 'auditor', 'admin']);
    expect(await sessionIds(user.id)).toEqual([sid]);
    await updateUserRoles(admin, user.id, ['reviewer']);
    expect(await sessionIds(user.id)).toEqual([]);
  });

  it('"sign out everywhere" ends every session of the user, the current one too', async () => {
    await open(user.id);
    await open(user.id);
    const adminSid = await open(admin.id);
    expect(await endOwnSessions(user)).toBe(2);
    expect(await sessionIds(user.id)).toEqual([]);
    expect(await sessionIds(admin.id)).toEqual([adminSid]);
  });

  it('deleting a user deletes their sessions', async () => {
    const prisma = await testDb();
    await open(user.id);
    await prisma.user.delete({ where: { id: user.id } });
    expect(await prisma.userSession.count()).toBe(0);
  });
});

describe('forced password change', () => {
  let admin: Actor;
  beforeEach(async () => {
    await truncateAll();
    admin = await seed('admin@example.com', ['admin']);
  });
  afterEach(() => {
    delete process.env.ADMIN_EMAIL;
    delete process.env.ADMIN_PASSWORD;
    vi.restoreAllMocks();
  });
  afterAll(closeTestDb);

  it('a user an admin creates must replace the password; the change clears the flag', async () => {
    const created = await createUser(admin, {
      email: 'new@example.com',
      roles: ['reviewer'],
      password: 'admin-chosen-pass-1',
    });
    const sid = await open(created.id);
    expect((await findActiveSession(sid, created.id))?.mustChangePassword).toBe(true);

    // The same password again does not count as a change.
    const same = await refusal(
      changeOwnPassword(
        { id: created.id, roles: created.roles, sessionId: sid },
        { currentPassword: 'admin-chosen-pass-1', newPassword: 'admin-chosen-pass-1' },
      ),
    );
    expect(same.details).toMatchObject({
      fields: { newPassword: { code: 'password_unchanged' } },
    });
    expect((await findActiveSession(sid, created.id))?.mustChangePassword).toBe(true);

    await changeOwnPassword(
      { id: created.id, roles: created.roles, sessionId: sid },
      { currentPassword: 'admin-chosen-pass-1', newPassword: 'my-own-password-1' },
    );
    expect((await findActiveSession(sid, created.id))?.mustChangePassword).toBe(false);
  });

  it('a generated first-admin password must be replaced; an ADMIN_PASSWORD need not', async () => {
    const prisma = await testDb();
    await prisma.user.deleteMany();
    const load = async (env: Record<string, string>) => {
      Object.assign(process.env, env);
      vi.resetModules();
      return import('@/lib/server/auth/bootstrap-admin');
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

    await (await load({})).ensureInitialAdmin();
    const generated = await prisma.user.findUniqueOrThrow({ where: { email: 'admin@localhost' } });
    expect(generated.mustChangePassword).toBe(true);

    await prisma.user.deleteMany();
    await (
      await load({ ADMIN_EMAIL: 'ops@example.com', ADMIN_PASSWORD: 'operator-chosen-1' })
    ).ensureInitialAdmin();
    const chosen = await prisma.user.findUniqueOrThrow({ where: { email: 'ops@example.com' } });
    expect(chosen.mustChangePassword).toBe(false);
  });
});
