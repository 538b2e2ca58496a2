import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@/lib/generated/prisma/enums';
import { exportRecords } from '@/lib/server/audit/export';
import { listAuditHosts } from '@/lib/server/audit/hosts';
import { getOverview } from '@/lib/server/audit/overview';
import { getRecordDetail } from '@/lib/server/audit/record-detail';
import { searchRecords } from '@/lib/server/audit/search';
import { getSessionTimeline } from '@/lib/server/audit/timeline';
import { insertRows, seedHostRow, seedUser } from './audit-seed';
import { closeTestDb, truncateAll } from './helpers/db';

describe('audit RBAC: auditors and admins only, checked in every service', () => {
  let host: string;
  let recordId: string;
  beforeAll(async () => {
    await truncateAll();
    host = await seedHostRow('rbac-host');
    [recordId] = (await insertRows(host, [{ sessionId: 'r-1', receivedAt: new Date() }])) as [
      string,
    ];
  });
  afterAll(closeTestDb);

  const calls = (actor: { id: string; roles: readonly Role[] }) => ({
    search: () => searchRecords(actor, {}),
    timeline: () => getSessionTimeline(actor, { sessionId: 'r-1' }),
    detail: () => getRecordDetail(actor, recordId),
    export: () => exportRecords(actor, { kind: 'query', filters: {} }, 'jsonl'),
    overview: () => getOverview(actor, '24h'),
    hosts: () => listAuditHosts(actor),
  });

  it('refuses a reviewer without the auditor role, and a user with no roles, with 403 forbidden', async () => {
    for (const roles of [['reviewer'], []] as Role[][]) {
      const actor = await seedUser(`u-${roles.join('-') || 'none'}@example.com`, roles);
      for (const [name, call] of Object.entries(calls(actor))) {
        await expect(call(), `${name} as ${roles}`).rejects.toMatchObject({
          status: 403,
          code: 'forbidden',
        });
      }
    }
  });

  it('lets auditors, reviewer-auditors and admins read', async () => {
    for (const roles of [['auditor'], ['reviewer', 'auditor'], ['admin']] as Role[][]) {
      const actor = await seedUser(`ok-${roles.join('-')}@example.com`, roles);
      const c = calls(actor);
      expect((await c.search()).rows.map((r) => r.id)).toEqual([recordId]);
      expect((await c.timeline()).kind).toBe('timeline');
      expect((await c.detail())?.id).toBe(recordId);
      const out = await c.export();
      await out.body.cancel();
      expect(out.total).toBe(1);
      expect((await c.overview()).totals.emissions).toBe(1);
      expect(await c.hosts()).toEqual([{ id: host, name: 'rbac-host' }]);
    }
  });
});
