import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { authenticateWithPassword } from '@/lib/server/auth/credentials';
import { hashPassword } from '@/lib/server/auth/password';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

const PASSWORD = 'right-password-123';
let hash: string;

async function seedUser(email: string, extra: { disabled?: boolean } = {}) {
  const prisma = await testDb();
  hash ??= await hashPassword(PASSWORD);
  return prisma.user.create({
    data: { email, roles: ['reviewer'], passwordHash: hash, ...extra },
    select: { id: true },
  });
}

const attempt = (email: string, password: string, ip: string | null = '10.0.0.1') =>
  authenticateWithPassword({ email, password, ip });

describe('sign-in with email and password', () => {
  beforeEach(truncateAll);
  afterAll(closeTestDb);

  it('signs in, records the success and the sign-in time', async () => {
    const { id } = await seedUser('ana@example.com');
    const result = await attempt('  ANA@example.com ', PASSWORD);
    expect(result).toMatchObject({ ok: true, user: { id, email: 'ana@example.com' } });
    const prisma = await testDb();
    const user = await prisma.user.findUniqueOrThrow({ where: { id } });
    expect(user.lastSignInAt).toBeInstanceOf(Date);
    const attempts = await prisma.signInAttempt.findMany();
    expect(attempts).toMatchObject([{ email: 'ana@example.com', ip: '10.0.0.1', success: true }]);
  });

  it('answers a wrong password, an unknown email and a disabled account the same way', async () => {
    await seedUser('ana@example.com');
    await seedUser('off@example.com', { disabled: true });
    expect(await attempt('ana@example.com', 'wrong-password-1')).toEqual({
      ok: false,
      code: 'invalid_credentials',
    });
    expect(await attempt('nobody@example.com', PASSWORD)).toEqual({
      ok: false,
      code: 'invalid_credentials',
    });
    expect(await attempt('off@example.com', PASSWORD)).toEqual({
      ok: false,
      code: 'invalid_credentials',
    });
  });

  it('locks an email after 5 failures for 15 minutes, even with the right password', async () => {
    await seedUser('ana@example.com');
    for (let i = 0; i < 5; i++) {
      expect((await attempt('ana@example.com', `wrong-${i}`)).ok).toBe(false);
    }
    expect(await attempt('ana@example.com', PASSWORD, '10.9.9.9')).toEqual({
      ok: false,
      code: 'rate_limited',
      retryAfterMinutes: 15,
    });
    // The refused attempt was not recorded (it cannot extend the lock-out).
    const prisma = await testDb();
    expect(await prisma.signInAttempt.count()).toBe(5);
    // Another account from the same address is unaffected.
    await seedUser('bo@example.com');
    expect((await attempt('bo@example.com', PASSWORD)).ok).toBe(true);

    // Once the failures are older than the window, the right password works.
    await prisma.signInAttempt.updateMany({
      where: { email: 'ana@example.com' },
      data: { createdAt: new Date(Date.now() - 16 * 60_000) },
    });
    expect((await attempt('ana@example.com', PASSWORD)).ok).toBe(true);
  });

  it('forgives earlier failures after a successful sign-in', async () => {
    await seedUser('ana@example.com');
    for (let i = 0; i < 4; i++) await attempt('ana@example.com', `wrong-${i}`);
    expect((await attempt('ana@example.com', PASSWORD)).ok).toBe(true);
    for (let i = 0; i < 4; i++) await attempt('ana@example.com', `wrong-again-${i}`);
    expect((await attempt('ana@example.com', PASSWORD)).ok).toBe(true);
  });

  it('limits one address to 20 failures across emails', async () => {
    await seedUser('ana@example.com');
    for (let i = 0; i < 20; i++) await attempt(`guess${i}@example.com`, 'wrong', '10.6.6.6');
    const refused = await attempt('ana@example.com', PASSWORD, '10.6.6.6');
    expect(refused).toMatchObject({ ok: false, code: 'rate_limited' });
    expect((await attempt('ana@example.com', PASSWORD, '10.7.7.7')).ok).toBe(true);
  });
});
