import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const auth = vi.hoisted(() => {
  process.env.METRICS_TOKEN = 'metrics-token-for-the-integration-test';
  return { user: null as null | { id: string; roles: string[] } };
});
vi.mock('@/lib/server/auth/session', () => ({
  getCurrentUser: async () =>
    auth.user && { ...auth.user, email: 'someone@example.com', name: null },
}));

const { GET } = await import('@/app/api/metrics/route');
const { ingestRecords } = await import('@/lib/server/records/ingest');
const { closeTestDb, truncateAll } = await import('./helpers/db');
const { makeRecord, seedHost } = await import('./records-fixtures');
const { stopBackground } = await import('@/lib/server/queue/runtime');

async function scrape(headers: Record<string, string> = {}) {
  const res = await GET(new NextRequest('http://localhost/api/metrics', { headers }), {
    params: Promise.resolve({}),
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

beforeAll(async () => {
  await truncateAll();
  const host = await seedHost('metrics');
  await ingestRecords(host.id, [
    makeRecord('m', 0),
    makeRecord('m', 1, { verdict: { decision: 'deny', reason: 'host_error:interceptor_failed' } }),
  ]);
});
afterAll(async () => {
  await stopBackground();
  await closeTestDb();
});

describe('/api/metrics is protected (RBAC)', () => {
  it('refuses an anonymous request with 401', async () => {
    auth.user = null;
    expect((await scrape()).status).toBe(401);
  });

  it('refuses a reviewer without the auditor role with 403', async () => {
    auth.user = { id: 'u1', roles: ['reviewer'] };
    const res = await scrape();
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).error.code).toBe('forbidden');
  });

  it('refuses a wrong metrics token even for a signed-in auditor', async () => {
    auth.user = { id: 'u1', roles: ['auditor'] };
    expect((await scrape({ authorization: 'Bearer not-the-token-at-all-nope' })).status).toBe(401);
  });

  it('serves auditors, admins and the metrics token, in the Prometheus text format', async () => {
    for (const user of [{ id: 'a', roles: ['auditor'] }, { id: 'b', roles: ['admin'] }, null]) {
      auth.user = user;
      const headers: Record<string, string> = user
        ? {}
        : { authorization: 'Bearer metrics-token-for-the-integration-test' };
      const res = await scrape(headers);
      expect(res.status).toBe(200);
      expect(res.type).toContain('text/plain; version=0.0.4');
      expect(res.text).toContain(
        'checkpoint_records_ingested_total{point="pre_tool_call",decision="allow"} 1',
      );
      expect(res.text).toContain(
        'checkpoint_records_ingested_total{point="pre_tool_call",decision="deny"} 1',
      );
      expect(res.text).toContain('checkpoint_records_host_error_total 1');
      expect(res.text).toMatch(/^checkpoint_outbox_backlog \d+$/m);
      expect(res.text).toMatch(/^checkpoint_queue_depth \d+$/m);
      expect(res.text).toContain('checkpoint_approvals_expired 0');
    }
  });
});

describe('/api/metrics beyond the checkpoint counters', () => {
  it('serves process and Node.js metrics and the outbound-request histogram', async () => {
    auth.user = { id: 'a', roles: ['auditor'] };
    const { text } = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total [\d.e-]+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+$/m);
    expect(text).toMatch(/^# TYPE checkpoint_outbound_request_duration_seconds histogram$/m);
  });

  it('says which counters are per process', async () => {
    auth.user = { id: 'a', roles: ['auditor'] };
    const { text } = await scrape();
    expect(text).toMatch(/^# HELP checkpoint_records_ingested_total .*this process/m);
    expect(text).toMatch(/^# HELP checkpoint_records_host_error_total .*this process/m);
    // Read from the database when scraped: not per process.
    expect(text).not.toMatch(/^# HELP checkpoint_approvals_pending .*this process/m);
  });
});
