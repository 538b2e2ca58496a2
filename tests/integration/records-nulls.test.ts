/**
 * §5.2/§10.3: a null optional member is an absent one. A record whose
 * projected verdict carries a null reason or message (a binding that does
 * not omit nulls) is stored, and indexed as having no reason.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST } from '@/app/api/v1/records/route';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, noParams, recordsRequest, seedHost } from './records-fixtures';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

async function post(body: unknown) {
  const res = await POST(
    recordsRequest(host.key, JSON.stringify(body), 'application/json'),
    noParams,
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

let host: { id: string; key: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('nulls');
});
afterAll(closeTestDb);

describe('POST /api/v1/records takes null optional members as absent', () => {
  it('stores null reason/message, null warning members, null verdicts[].reason and resolved_by', async () => {
    const records = [
      makeRecord('s-null', 0, { verdict: { decision: 'allow', reason: null, message: null } }),
      makeRecord('s-null', 1, {
        verdict: {
          decision: 'deny',
          reason: 'policy:no',
          message: null,
          warnings: [{ reason: 'w', message: null }],
          result_labels: null,
        },
        decided_by: 0,
        resolved_by: null,
        composition: { profile: 'sequential/run_all' },
        verdicts: [{ index: 0, decision: 'deny', reason: null }],
      }),
    ];
    const res = await post(records);
    expect(res).toEqual({ status: 200, json: { accepted: 2, duplicates: 0 } });
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => [r.decision, r.reason, r.hostError, r.resolvedBy])).toEqual([
      ['allow', null, false, null],
      ['deny', 'policy:no', false, null],
    ]);
    expect(rows[1].record).toEqual(records[1]);
  });

  it('still refuses what the store cannot index: a null decision, a verdict member outside §10.3', async () => {
    for (const verdict of [{ decision: null }, { decision: 'allow', context: { secret: 1 } }]) {
      const res = await post([makeRecord('s-bad', 0, { verdict })]);
      expect(res.status).toBe(400);
    }
    const prisma = await testDb();
    expect(await prisma.interceptionRecord.count()).toBe(0);
  });
});
