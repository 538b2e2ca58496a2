import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestRecords } from '@/lib/server/records/ingest';
import { verifySessionChain } from '@/lib/server/records/verify';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

/**
 * Issue 13: every remaining link of a session whose tail was deleted still
 * recomputes and no sequence hole is left, so only the stored chain head
 * (SessionChain: head hash, highest sequence, count) shows the truncation.
 */

let host: { id: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('head');
  await ingestRecords(
    host.id,
    Array.from({ length: 10 }, (_, i) => makeRecord('s', i)),
  );
});
afterAll(closeTestDb);

describe('session chain head check', () => {
  it('an untouched session matches its head', async () => {
    expect(await verifySessionChain(host.id, 's')).toStrictEqual({
      ok: true,
      checked: 10,
      firstBrokenSequence: null,
      gaps: [],
    });
  });

  it('reports a deleted tail as truncated, naming what the head expected', async () => {
    const prisma = await testDb();
    const head = await prisma.sessionChain.findFirstOrThrow({ where: { sessionId: 's' } });
    const seventh = await prisma.interceptionRecord.findFirstOrThrow({
      where: { sessionId: 's', sequence: 6 },
    });
    await prisma.$executeRawUnsafe(
      `DELETE FROM "InterceptionRecord" WHERE "sessionId" = 's' AND sequence >= 7`,
    );
    expect(await verifySessionChain(host.id, 's')).toEqual({
      ok: false,
      checked: 7,
      firstBrokenSequence: null,
      gaps: [],
      head: {
        problem: 'truncated',
        expected: { headHash: head.headHash, lastSequence: 9, recordCount: 10 },
        found: { headHash: seventh.chainHash, lastSequence: 6, recordCount: 7 },
      },
    });
  });

  it('reports a whole session deleted behind its head, and a head deleted behind its records', async () => {
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(`DELETE FROM "InterceptionRecord" WHERE "sessionId" = 's'`);
    expect(await verifySessionChain(host.id, 's')).toMatchObject({
      ok: false,
      checked: 0,
      head: { problem: 'truncated' },
    });
    await ingestRecords(
      host.id,
      [0, 1].map((i) => makeRecord('t', i)),
    );
    await prisma.$executeRawUnsafe(`DELETE FROM "SessionChain" WHERE "sessionId" = 't'`);
    expect(await verifySessionChain(host.id, 't')).toMatchObject({
      ok: false,
      checked: 2,
      head: { problem: 'head_missing', expected: null },
    });
  });

  it('reports a head rewritten to match nothing stored', async () => {
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(
      `UPDATE "SessionChain" SET "headHash" = repeat('0', 64) WHERE "sessionId" = 's'`,
    );
    expect(await verifySessionChain(host.id, 's')).toMatchObject({
      ok: false,
      head: { problem: 'head_mismatch' },
    });
  });
});
