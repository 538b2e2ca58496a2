import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as getReady } from '@/app/api/ready/route';
import { getReadiness, readinessHttpStatus } from '@/lib/server/health/readiness';
import { stopBackground } from '@/lib/server/queue/runtime';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

/**
 * Readiness knows an installation nobody can administer: a restored
 * database with no enabled admin is not ready, and says why (issue 17).
 */
describe('/api/ready: the admin check', () => {
  beforeEach(truncateAll);
  afterAll(async () => {
    await stopBackground();
    await closeTestDb();
  });

  it('no enabled admin (a restored database): unready, 503, reason no_enabled_admin', async () => {
    const prisma = await testDb();
    await prisma.user.create({ data: { email: 'rev@example.com', roles: ['reviewer'] } });
    await prisma.user.create({
      data: { email: 'old-admin@example.com', roles: ['admin'], disabled: true },
    });
    const r = await getReadiness();
    expect(r.status).toBe('unready');
    expect(readinessHttpStatus(r)).toBe(503);
    expect(r.reasons).toContain('no_enabled_admin');
    expect(r.checks).toMatchObject({ database: { ok: true }, admin: { ok: false } });

    const res = await getReady();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
    const body = await res.json();
    expect(body.reasons).toContain('no_enabled_admin');
    expect(JSON.stringify(body)).not.toMatch(/example\.com|postgres(ql)?:\/\//);
  });

  it('an enabled admin: the admin check passes', async () => {
    const prisma = await testDb();
    await prisma.user.create({
      data: { email: 'admin@example.com', roles: ['admin', 'reviewer'] },
    });
    const r = await getReadiness();
    expect(r.checks.admin.ok).toBe(true);
    expect(r.reasons).not.toContain('no_enabled_admin');
    expect(r.reasons).not.toContain('admin_check_failed');
    expect(['ready', 'degraded']).toContain(r.status);
    expect(readinessHttpStatus(r)).toBe(200);
  });
});
