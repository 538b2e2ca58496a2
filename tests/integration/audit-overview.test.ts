import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOverview, TOP_REASONS } from '@/lib/server/audit/overview';
import { insertRows, type SeedRow, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

const NOW = new Date('2026-12-02T10:30:00.000Z');
const hoursAgo = (h: number, min = 0) => new Date(NOW.getTime() - h * 3600_000 - min * 60_000);

describe('audit overview aggregates', () => {
  let auditor: { id: string; roles: ('auditor' | 'admin' | 'reviewer')[] };
  beforeAll(async () => {
    await truncateAll();
    auditor = (await seedUser('aud@example.com', ['auditor'])) as typeof auditor;
    const host = await seedHostRow('ov-host');
    const rows: SeedRow[] = [
      // The current hour (10:00): 4 emissions, one host error, one truncated.
      { receivedAt: hoursAgo(0, 5) },
      { receivedAt: hoursAgo(0, 10), decision: 'deny', reason: 'host_error:interceptor_failed' },
      { receivedAt: hoursAgo(0, 15), decision: 'deny', reason: 'r1', foldTruncated: true },
      { receivedAt: hoursAgo(0, 20), decision: 'deny', reason: 'r1' },
      // Two hours earlier (08:00): denies spread over 7 reasons.
      ...['r1', 'r2', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'].map((reason) => ({
        receivedAt: hoursAgo(2),
        decision: 'deny',
        reason,
      })),
      // Outside 24 h: never counted.
      { receivedAt: hoursAgo(30), decision: 'deny', reason: 'old' },
    ];
    await insertRows(host, rows);
    const prisma = await testDb();
    const ticket = (
      status: 'pending' | 'approved' | 'rejected' | 'expired',
      created: Date,
      decided: Date | null,
    ) =>
      prisma.approvalTicket.create({
        data: {
          hostId: host,
          interceptionPoint: 'pre_tool_call',
          verdict: {},
          context: {},
          sessionId: 's',
          agentId: 'a',
          status,
          createdAt: created,
          decidedAt: decided,
          expiresAt: new Date(created.getTime() + 15 * 60_000),
        },
      });
    await ticket('approved', hoursAgo(2, -5), hoursAgo(2, -10));
    await ticket('rejected', hoursAgo(2, -5), hoursAgo(0, 1));
    await ticket('expired', hoursAgo(1, -1), null);
    await ticket('pending', hoursAgo(0, 2), null);
  });
  afterAll(closeTestDb);

  it('buckets the last 24 hours by hour, zeros filled in', async () => {
    const o = await getOverview(auditor, '24h', NOW);
    expect(o.buckets).toHaveLength(24);
    expect(o.buckets.at(-1)).toBe('2026-12-02T10:00:00.000Z');
    expect(o.buckets[0]).toBe('2026-12-01T11:00:00.000Z');
    const at = (iso: string) => o.buckets.indexOf(iso);
    expect(o.emissions[at('2026-12-02T10:00:00.000Z')]).toBe(4);
    expect(o.emissions[at('2026-12-02T08:00:00.000Z')]).toBe(8);
    expect(o.emissions.reduce((a, b) => a + b, 0)).toBe(12);
    expect(o.totals).toEqual({ emissions: 12, denies: 11, hostErrors: 1, requested: 4 });
    expect(o.hostErrorRate[at('2026-12-02T10:00:00.000Z')]).toBe(0.25);
    expect(o.foldTruncatedRate[at('2026-12-02T10:00:00.000Z')]).toBe(0.25);
    expect(o.hostErrorRate[at('2026-12-02T09:00:00.000Z')]).toBe(0);
  });

  it('stacks denies by the top reasons, the rest as "other"', async () => {
    const o = await getOverview(auditor, '24h', NOW);
    const names = o.deniesByReason.map((s) => s.name);
    expect(names).toHaveLength(TOP_REASONS + 1);
    expect(names.slice(0, 2)).toEqual(['r1', 'r2']);
    expect(names.at(-1)).toBe('other');
    const total = o.deniesByReason.flatMap((s) => s.values).reduce((a, b) => a + b, 0);
    expect(total).toBe(11);
    const r1 = o.deniesByReason.find((s) => s.name === 'r1');
    expect(r1?.values.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('counts approvals requested by creation and outcomes by decision (expired at the deadline)', async () => {
    const o = await getOverview(auditor, '24h', NOW);
    const series = Object.fromEntries(o.approvals.map((s) => [s.name, s.values]));
    const at = (iso: string) => o.buckets.indexOf(iso);
    expect(series.requested?.[at('2026-12-02T08:00:00.000Z')]).toBe(2);
    expect(series.requested?.[at('2026-12-02T09:00:00.000Z')]).toBe(1);
    expect(series.requested?.[at('2026-12-02T10:00:00.000Z')]).toBe(1);
    expect(series.approved?.[at('2026-12-02T08:00:00.000Z')]).toBe(1);
    expect(series.rejected?.[at('2026-12-02T10:00:00.000Z')]).toBe(1);
    expect(series.expired?.[at('2026-12-02T09:00:00.000Z')]).toBe(1);
  });

  it('uses days for 7 and 30 days', async () => {
    const week = await getOverview(auditor, '7d', NOW);
    expect(week.buckets).toHaveLength(7);
    expect(week.buckets.at(-1)).toBe('2026-12-02T00:00:00.000Z');
    expect(week.emissions.at(-1)).toBe(12);
    expect(week.emissions.at(-2)).toBe(1);
    const month = await getOverview(auditor, '30d', NOW);
    expect(month.buckets).toHaveLength(30);
    expect(month.totals.emissions).toBe(13);
  });
});
