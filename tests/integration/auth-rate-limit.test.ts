import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authenticateWithPassword } from '@/lib/server/auth/credentials';
import { hashPassword } from '@/lib/server/auth/password';
import { checkpointMetrics } from '@/lib/server/metrics/registry';
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

/**
 * The throttle reads the clock (`new Date()`) when an attempt arrives and
 * stamps the failures with it. The clock is frozen in these tests, so the
 * time an attempt takes (scrypt on a loaded CI machine can take over a
 * second) never counts as waiting: every wait asserted below is exact.
 */
function freezeClock() {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date() });
}

/** Lets `ms` pass on the frozen clock. */
function advance(ms: number) {
  vi.setSystemTime(Date.now() + ms);
}

/** Moves every recorded attempt `ms` into the past: the same as waiting `ms`. */
async function wait(ms: number) {
  const prisma = await testDb();
  await prisma.$executeRaw`UPDATE "SignInAttempt" SET "createdAt" = "createdAt" - ${ms} * interval '1 millisecond'`;
}

/** Wrong attempts for `email` from `ip`, waiting out each refusal, until `failures` were recorded. */
async function fail(email: string, ip: string, failures: number) {
  for (let recorded = 0; recorded < failures; ) {
    const r = await attempt(email, 'wrong-password', ip);
    if (r.ok) throw new Error('wrong password accepted');
    if (r.code === 'rate_limited') await wait(r.retryAfterSeconds * 1000);
    else recorded++;
  }
}

const throttled = async (scope: string) =>
  (await checkpointMetrics().signInThrottled.get()).values.find((v) => v.labels.scope === scope)
    ?.value ?? 0;

describe('sign-in with email and password', () => {
  beforeEach(async () => {
    await truncateAll();
    freezeClock();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(closeTestDb);

  it('signs in, records the success and the sign-in time', async () => {
    const { id } = await seedUser('ana@example.com');
    const result = await attempt('  ANA@example.com ', PASSWORD);
    expect(result).toMatchObject({ ok: true, user: { id, email: 'ana@example.com' } });
    const prisma = await testDb();
    const user = await prisma.user.findUniqueOrThrow({ where: { id } });
    expect(user.lastSignInAt).toBeInstanceOf(Date);
    const attempts = await prisma.signInAttempt.findMany();
    expect(attempts).toMatchObject([
      { email: 'ana@example.com', ip: '10.0.0.1', client: '10.0.0.1', success: true },
    ]);
  });

  it('answers a wrong password, an unknown email and a disabled account the same way', async () => {
    await seedUser('ana@example.com');
    await seedUser('off@example.com', { disabled: true });
    for (const [email, password] of [
      ['ana@example.com', 'wrong-password-1'],
      ['nobody@example.com', PASSWORD],
      ['off@example.com', PASSWORD],
    ]) {
      expect(await attempt(email, password)).toEqual({ ok: false, code: 'invalid_credentials' });
    }
  });

  it('backs off one client on one account exponentially: 1 s, 2 s, 4 s, 8 s after 5 failures', async () => {
    await seedUser('ana@example.com');
    await fail('ana@example.com', '10.0.0.1', 5);
    const before = await throttled('pair');
    for (let i = 0; i < 4; i++) {
      const backoff = 2 ** i * 1000;
      // Right after the failure the whole wait is ahead (the right password too is refused)…
      expect(await attempt('ana@example.com', PASSWORD, '10.0.0.1')).toEqual({
        ok: false,
        code: 'rate_limited',
        retryAfterSeconds: 2 ** i,
      });
      // …1 ms before it ends it still refuses, counted from that failure…
      advance(backoff - 1);
      expect(await attempt('ana@example.com', PASSWORD, '10.0.0.1')).toEqual({
        ok: false,
        code: 'rate_limited',
        retryAfterSeconds: 1,
      });
      // …and once it is over the next attempt is checked (and fails again).
      advance(1);
      expect(await attempt('ana@example.com', `wrong-${i}`, '10.0.0.1')).toEqual({
        ok: false,
        code: 'invalid_credentials',
      });
    }
    expect(await throttled('pair')).toBe(before + 8);
    // Refused attempts are not recorded: 9 failures, the one before each wait.
    const prisma = await testDb();
    expect(await prisma.signInAttempt.count()).toBe(9);
  });

  it('caps the back-off at 15 minutes, and hammering during a wait does not extend it', async () => {
    await seedUser('ana@example.com');
    await fail('ana@example.com', '10.0.0.1', 16);
    const first = await attempt('ana@example.com', PASSWORD, '10.0.0.1');
    expect(first).toEqual({ ok: false, code: 'rate_limited', retryAfterSeconds: 900 });
    for (let i = 0; i < 10; i++) await attempt('ana@example.com', 'wrong', '10.0.0.1');
    advance(10 * 60_000);
    const later = await attempt('ana@example.com', PASSWORD, '10.0.0.1');
    expect(later).toEqual({ ok: false, code: 'rate_limited', retryAfterSeconds: 300 });
    advance(300_000);
    // The right password works once the wait is over, and forgives the pair's failures
    // (3 more stay under the client's 20 across accounts, which a success does not reset).
    expect((await attempt('ana@example.com', PASSWORD, '10.0.0.1')).ok).toBe(true);
    await fail('ana@example.com', '10.0.0.1', 3);
    expect((await attempt('ana@example.com', PASSWORD, '10.0.0.1')).ok).toBe(true);
  });

  it("never locks the owner out: an attacker's failures from A do not refuse B's right password", async () => {
    await seedUser('admin@example.com');
    await fail('admin@example.com', '203.0.113.66', 30);
    const refusedA = await attempt('admin@example.com', PASSWORD, '203.0.113.66');
    expect(refusedA).toMatchObject({ ok: false, code: 'rate_limited' });
    // The owner, on a client that has not failed, gets in at once.
    expect((await attempt('admin@example.com', PASSWORD, '198.51.100.20')).ok).toBe(true);
    // And from a brand-new client too.
    expect((await attempt('admin@example.com', PASSWORD, '2001:db8:5::1')).ok).toBe(true);
  });

  it('slows clients new to an account under attack after 1 failure; familiar ones keep 5', async () => {
    await seedUser('ana@example.com');
    expect((await attempt('ana@example.com', PASSWORD, '10.0.0.2')).ok).toBe(true);
    for (const ip of ['10.6.0.1', '10.6.0.2']) await fail('ana@example.com', ip, 5);
    const before = await throttled('account');
    // A new client's single failure now costs a 1 s wait…
    await fail('ana@example.com', '10.6.0.3', 1);
    expect(await attempt('ana@example.com', PASSWORD, '10.6.0.3')).toEqual({
      ok: false,
      code: 'rate_limited',
      retryAfterSeconds: 1,
    });
    expect(await throttled('account')).toBe(before + 1);
    // …while the owner's usual client may still mistype a few times.
    await fail('ana@example.com', '10.0.0.2', 2);
    expect((await attempt('ana@example.com', PASSWORD, '10.0.0.2')).ok).toBe(true);
  });

  it('backs off one client across accounts after 20 failures; other clients are unaffected', async () => {
    await seedUser('ana@example.com');
    for (let i = 0; i < 20; i++) await fail(`guess${i}@example.com`, '10.6.6.6', 1);
    const refused = await attempt('ana@example.com', PASSWORD, '10.6.6.6');
    expect(refused).toEqual({ ok: false, code: 'rate_limited', retryAfterSeconds: 1 });
    expect((await attempt('ana@example.com', PASSWORD, '10.7.7.7')).ok).toBe(true);
  });

  it('keys an IPv6 client by its /64, so rotating within it does not escape', async () => {
    for (let i = 0; i < 5; i++) {
      await fail('ana@example.com', `2001:db8:1:2::${(i + 1).toString(16)}`, 1);
    }
    expect(await attempt('ana@example.com', PASSWORD, '2001:db8:1:2:ffff::9')).toMatchObject({
      ok: false,
      code: 'rate_limited',
    });
  });

  it('lets only one of a parallel burst through the same check', async () => {
    await seedUser('ana@example.com');
    await fail('ana@example.com', '10.0.0.1', 4);
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => attempt('ana@example.com', `wrong-${i}`, '10.0.0.1')),
    );
    const codes = burst.map((r) => (r.ok ? 'ok' : r.code)).sort();
    expect(codes).toEqual(['invalid_credentials', ...Array(5).fill('rate_limited')]);
  });
});
