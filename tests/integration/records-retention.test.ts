import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { recordsRetentionJob } from '@/lib/server/jobs/records-retention';
import { moduleLogger } from '@/lib/server/logger';
import { ingestRecords } from '@/lib/server/records/ingest';
import { RETENTION_SETTING_KEY, runRecordsRetention } from '@/lib/server/records/retention';
import { verifySessionChain } from '@/lib/server/records/verify';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { hostFailureRecord, makeRecord, seedHost } from './records-fixtures';

const DAY = 24 * 60 * 60 * 1000;
let host: { id: string };

/** Backdates a session's last append and its rows, as if they were `days` old. */
async function age(sessionId: string, days: number) {
  const prisma = await testDb();
  const at = new Date(Date.now() - days * DAY);
  await prisma.sessionChain.updateMany({ where: { sessionId }, data: { updatedAt: at } });
  await prisma.$executeRawUnsafe(
    `UPDATE "InterceptionRecord" SET "receivedAt" = $1::timestamp(3) WHERE "sessionId" = $2`,
    at.toISOString(),
    sessionId,
  );
}

beforeEach(async () => {
  await truncateAll();
  host = await seedHost('retention');
  await ingestRecords(
    host.id,
    [0, 1, 2].map((i) => makeRecord('old', i)),
  );
  await ingestRecords(
    host.id,
    [0, 1].map((i) => makeRecord('new', i)),
  );
  await ingestRecords(host.id, [hostFailureRecord('old failure')]);
  await age('old', 400);
  await age('', 400);
  await ingestRecords(host.id, [hostFailureRecord('recent failure')]);
});
afterAll(closeTestDb);

describe('records retention (the only delete path)', () => {
  it('deletes sessions older than the retention age whole, keeps the rest verifiable, audits counts', async () => {
    const prisma = await testDb();
    const outcome = await runRecordsRetention(prisma, { trigger: 'manual' });
    expect(outcome).toMatchObject({
      retentionDays: 365,
      sessionsDeleted: 1,
      recordsDeleted: 3,
      hostFailuresDeleted: 1,
    });
    const left = await prisma.interceptionRecord.findMany({ select: { sessionId: true } });
    expect(left.map((r) => r.sessionId).sort()).toEqual(['', 'new', 'new']);
    expect(await prisma.sessionChain.count({ where: { sessionId: 'old' } })).toBe(0);
    expect(await verifySessionChain(host.id, 'new')).toMatchObject({ ok: true, checked: 2 });
    const event = await prisma.auditEvent.findFirstOrThrow({
      where: { action: 'records.retention' },
    });
    expect(event).toMatchObject({
      actorKind: 'system',
      details: { trigger: 'manual', recordsDeleted: 3, sessionsDeleted: 1, hostFailuresDeleted: 1 },
    });
  });

  it('a session resumed after expiry starts a fresh chain that verifies', async () => {
    const prisma = await testDb();
    await runRecordsRetention(prisma, { trigger: 'manual' });
    await ingestRecords(host.id, [makeRecord('old', 3)]);
    expect(await verifySessionChain(host.id, 'old')).toMatchObject({
      checked: 1,
      firstBrokenSequence: null,
    });
  });

  it('honours the AppSetting, and does nothing but an audit event when it is invalid', async () => {
    const prisma = await testDb();
    await prisma.appSetting.create({ data: { key: RETENTION_SETTING_KEY, value: 'forever' } });
    const outcome = await runRecordsRetention(prisma, { trigger: 'manual' });
    expect(outcome).toEqual({ skipped: 'invalid_setting', setting: 'forever' });
    expect(await prisma.interceptionRecord.count()).toBe(7);
    await prisma.appSetting.update({ where: { key: RETENTION_SETTING_KEY }, data: { value: 500 } });
    expect(await runRecordsRetention(prisma, { trigger: 'manual' })).toMatchObject({
      retentionDays: 500,
      recordsDeleted: 0,
    });
    expect(await prisma.auditEvent.count({ where: { action: 'records.retention' } })).toBe(2);
  });

  it('runs as the records.retention job and proposes the next day’s run', async () => {
    const prisma = await testDb();
    await recordsRetentionJob.handler(
      { trigger: 'schedule' },
      { db: prisma, log: moduleLogger('test'), jobId: 'records.retention.1', attempt: 1 },
    );
    expect(await prisma.interceptionRecord.count()).toBe(3);
    const next = await prisma.outboxEvent.findFirstOrThrow({
      where: { kind: 'records.retention' },
    });
    expect(next.availableAt.getTime()).toBeGreaterThan(Date.now() + DAY - 60_000);
  });
});
