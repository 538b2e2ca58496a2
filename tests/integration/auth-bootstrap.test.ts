import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authenticateWithPassword } from '@/lib/server/auth/credentials';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

// ensureInitialAdmin reads ADMIN_EMAIL/ADMIN_PASSWORD through config(), which
// is parsed once per module graph: each case imports a fresh graph.
async function freshBootstrap(env: { ADMIN_EMAIL?: string; ADMIN_PASSWORD?: string }) {
  delete process.env.ADMIN_EMAIL;
  delete process.env.ADMIN_PASSWORD;
  Object.assign(process.env, env);
  vi.resetModules();
  return import('@/lib/server/auth/bootstrap-admin');
}

function captureStdout() {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  return {
    text: () => spy.mock.calls.map((c) => String(c[0])).join(''),
    restore: () => spy.mockRestore(),
  };
}

describe('first-run admin (ensureInitialAdmin)', () => {
  beforeEach(truncateAll);
  afterEach(() => {
    delete process.env.ADMIN_EMAIL;
    delete process.env.ADMIN_PASSWORD;
    vi.restoreAllMocks();
  });
  afterAll(closeTestDb);

  it('creates admin@localhost with a generated password printed once, and only once', async () => {
    const { ensureInitialAdmin } = await freshBootstrap({});
    const out = captureStdout();
    await ensureInitialAdmin();
    const first = out.text();
    await ensureInitialAdmin();
    const second = out.text().slice(first.length);
    out.restore();

    const password = /Password\s+(\S+)/.exec(first)?.[1];
    expect(first).toContain('admin@localhost');
    expect(first).toContain('/sign-in');
    expect(password).toBeTruthy();
    expect(second).toBe('');

    const prisma = await testDb();
    const users = await prisma.user.findMany({ select: { email: true, roles: true } });
    expect(users).toEqual([{ email: 'admin@localhost', roles: ['admin'] }]);
    // The printed password really signs in.
    const signIn = await authenticateWithPassword({
      email: 'admin@localhost',
      password: password as string,
      ip: '127.0.0.1',
    });
    expect(signIn.ok).toBe(true);
    const events = await prisma.auditEvent.findMany({
      select: { actorKind: true, action: true, details: true },
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorKind: 'system', action: 'user.created' });
    expect(JSON.stringify(events[0].details)).not.toContain(password as string);
  });

  it('uses ADMIN_EMAIL and ADMIN_PASSWORD when set, and prints no password', async () => {
    const { ensureInitialAdmin } = await freshBootstrap({
      ADMIN_EMAIL: 'Ops@Example.com',
      ADMIN_PASSWORD: 'configured-password-1',
    });
    const out = captureStdout();
    await ensureInitialAdmin();
    out.restore();
    expect(out.text()).not.toContain('configured-password-1');
    expect(out.text()).not.toContain('Password');
    const prisma = await testDb();
    const users = await prisma.user.findMany({ select: { email: true, roles: true } });
    expect(users).toEqual([{ email: 'ops@example.com', roles: ['admin'] }]);
    const signIn = await authenticateWithPassword({
      email: 'ops@example.com',
      password: 'configured-password-1',
      ip: null,
    });
    expect(signIn.ok).toBe(true);
  });

  it('does nothing when an enabled admin exists', async () => {
    const prisma = await testDb();
    await prisma.user.create({
      data: { email: 'existing@example.com', roles: ['admin'], passwordHash: null },
    });
    const { ensureInitialAdmin } = await freshBootstrap({
      ADMIN_EMAIL: 'other@example.com',
      ADMIN_PASSWORD: 'another-password-1',
    });
    const out = captureStdout();
    await ensureInitialAdmin();
    out.restore();
    expect(out.text()).toBe('');
    expect(await prisma.user.count()).toBe(1);
    expect(await prisma.auditEvent.count()).toBe(0);
  });

  it('promotes the configured email when it exists without admin rights', async () => {
    const prisma = await testDb();
    await prisma.user.create({
      data: { email: 'ops@example.com', roles: ['reviewer'], disabled: true },
    });
    const { ensureInitialAdmin } = await freshBootstrap({
      ADMIN_EMAIL: 'ops@example.com',
      ADMIN_PASSWORD: 'configured-password-1',
    });
    await ensureInitialAdmin();
    const user = await prisma.user.findUniqueOrThrow({
      where: { email: 'ops@example.com' },
      select: { roles: true, disabled: true },
    });
    expect(user).toEqual({ roles: ['admin', 'reviewer'], disabled: false });
  });
});
