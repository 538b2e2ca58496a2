import pg from 'pg';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '@/lib/generated/prisma/enums';
import { authenticateWithPassword } from '@/lib/server/auth/credentials';
import { ApiError } from '@/lib/server/http/api-error';
import {
  type Actor,
  changeOwnPassword,
  createUser,
  listUsers,
  resetUserPassword,
  setUserDisabled,
  updateUserRoles,
} from '@/lib/server/users';
import { closeTestDb, testDatabaseUrl, testDb, truncateAll } from './helpers/db';

async function seed(email: string, roles: Role[]): Promise<Actor> {
  const prisma = await testDb();
  return prisma.user.create({ data: { email, roles }, select: { id: true, roles: true } });
}

/** The error a call rejects with (fails the test if it resolves). */
async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** Everything a refused call must leave unchanged. */
async function snapshot() {
  const prisma = await testDb();
  return {
    users: await prisma.user.findMany({
      orderBy: { email: 'asc' },
      select: { email: true, roles: true, disabled: true, passwordHash: true, slackUserId: true },
    }),
    events: await prisma.auditEvent.count(),
  };
}

describe('user services', () => {
  let admin: Actor;
  let reviewer: Actor;
  beforeEach(async () => {
    await truncateAll();
    admin = await seed('admin@example.com', ['admin']);
    reviewer = await seed('rev@example.com', ['reviewer']);
  });
  afterAll(closeTestDb);

  it('an admin creates a user who can then sign in; the change is audited without secrets', async () => {
    const created = await createUser(admin, {
      email: ' New@Example.com',
      name: 'New Person',
      roles: ['auditor', 'reviewer'],
      password: 'a-long-password-1',
    });
    expect(created).toMatchObject({
      email: 'new@example.com',
      name: 'New Person',
      roles: ['reviewer', 'auditor'],
      disabled: false,
      hasPassword: true,
    });
    const signIn = await authenticateWithPassword({
      email: 'new@example.com',
      password: 'a-long-password-1',
      ip: null,
    });
    expect(signIn.ok).toBe(true);
    const prisma = await testDb();
    const [event] = await prisma.auditEvent.findMany();
    expect(event).toMatchObject({
      actorId: admin.id,
      actorKind: 'user',
      action: 'user.created',
      targetType: 'user',
      targetId: created.id,
    });
    expect(JSON.stringify(event.details)).not.toMatch(/password|scrypt/i);
  });

  it('refuses invalid input with field codes and creates nothing', async () => {
    const before = await snapshot();
    const err = await refusal(
      createUser(admin, { email: 'not-an-email', roles: ['root'], password: 'short' }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('request_invalid');
    expect(err.details).toMatchObject({
      fields: {
        email: { code: 'email_invalid' },
        roles: { code: 'roles_invalid' },
        password: { code: 'password_too_short' },
      },
    });
    const dup = await refusal(
      createUser(admin, { email: 'REV@example.com', roles: [], password: 'a-long-password-1' }),
    );
    expect([dup.status, dup.code]).toEqual([409, 'email_taken']);
    expect(await snapshot()).toEqual(before);
  });

  it('a reviewer calling admin actions is refused and nothing changes', async () => {
    const before = await snapshot();
    const calls = [
      listUsers(reviewer),
      createUser(reviewer, {
        email: 'x@example.com',
        roles: ['admin'],
        password: 'a-long-password-1',
      }),
      updateUserRoles(reviewer, reviewer.id, ['admin']),
      setUserDisabled(reviewer, admin.id, true),
      resetUserPassword(reviewer, admin.id, 'a-long-password-1'),
    ];
    for (const call of calls) {
      const err = await refusal(call);
      expect([err.status, err.code]).toEqual([403, 'forbidden']);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a stale actor whose admin role was removed is refused', async () => {
    const prisma = await testDb();
    await prisma.user.update({ where: { id: admin.id }, data: { roles: ['reviewer'] } });
    const err = await refusal(updateUserRoles(admin, reviewer.id, ['admin']));
    expect(err.code).toBe('forbidden');
  });

  it('an admin cannot remove their own admin role or disable themselves', async () => {
    const before = await snapshot();
    const demote = await refusal(updateUserRoles(admin, admin.id, ['reviewer']));
    expect([demote.status, demote.code]).toEqual([409, 'cannot_remove_own_admin']);
    const disable = await refusal(setUserDisabled(admin, admin.id, true));
    expect([disable.status, disable.code]).toEqual([409, 'cannot_disable_self']);
    expect(await snapshot()).toEqual(before);
  });

  it('two admins demoting each other at once leave one admin (admin rows are locked)', async () => {
    const other = await seed('admin2@example.com', ['admin']);
    // A concurrent change by `admin` that demotes `other`, still uncommitted.
    const concurrent = new pg.Client({ connectionString: testDatabaseUrl() });
    await concurrent.connect();
    try {
      await concurrent.query('BEGIN');
      await concurrent.query(`SELECT id FROM "User" WHERE 'admin'::"Role" = ANY(roles) FOR UPDATE`);
      await concurrent.query(`UPDATE "User" SET roles = '{reviewer}' WHERE id = $1`, [other.id]);
      // Meanwhile `other` tries to demote `admin`: it must wait for the lock...
      let settled = false;
      const racing = updateUserRoles(other, admin.id, ['reviewer']).finally(() => {
        settled = true;
      });
      racing.catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      await concurrent.query('COMMIT');
      // ...and then finds it is no longer an admin.
      const err = await refusal(racing);
      expect(err.code).toBe('forbidden');
    } finally {
      await concurrent.end();
    }
    const prisma = await testDb();
    const admins = await prisma.user.findMany({ where: { roles: { has: 'admin' } } });
    expect(admins.map((u) => u.id)).toEqual([admin.id]);
  });

  it('edits roles, disables and enables, and resets passwords, each audited', async () => {
    expect((await updateUserRoles(admin, reviewer.id, ['reviewer', 'auditor'])).roles).toEqual([
      'reviewer',
      'auditor',
    ]);
    expect((await setUserDisabled(admin, reviewer.id, true)).disabled).toBe(true);
    expect((await setUserDisabled(admin, reviewer.id, false)).disabled).toBe(false);
    await resetUserPassword(admin, reviewer.id, 'reset-password-123');
    const weak = await refusal(resetUserPassword(admin, reviewer.id, 'short'));
    expect(weak.details).toMatchObject({ fields: { password: { code: 'password_too_short' } } });
    expect(
      (
        await authenticateWithPassword({
          email: 'rev@example.com',
          password: 'reset-password-123',
          ip: null,
        })
      ).ok,
    ).toBe(true);
    const missing = await refusal(
      setUserDisabled(admin, '00000000-0000-0000-0000-000000000000', true),
    );
    expect([missing.status, missing.code]).toEqual([404, 'not_found']);
    const prisma = await testDb();
    const actions = (await prisma.auditEvent.findMany({ orderBy: { id: 'asc' } })).map(
      (e) => e.action,
    );
    expect(actions).toEqual([
      'user.roles_changed',
      'user.disabled',
      'user.enabled',
      'user.password_reset',
    ]);
  });

  it('changes the own password only with the current one', async () => {
    await resetUserPassword(admin, reviewer.id, 'first-password-123');
    const wrong = await refusal(
      changeOwnPassword(reviewer, { currentPassword: 'nope', newPassword: 'second-password-123' }),
    );
    expect(wrong.details).toMatchObject({
      fields: { currentPassword: { code: 'password_wrong' } },
    });
    await changeOwnPassword(reviewer, {
      currentPassword: 'first-password-123',
      newPassword: 'second-password-123',
    });
    const signIn = await authenticateWithPassword({
      email: 'rev@example.com',
      password: 'second-password-123',
      ip: null,
    });
    expect(signIn.ok).toBe(true);
  });
});
