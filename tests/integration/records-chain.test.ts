import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { ingestRecords } from '@/lib/server/records/ingest';
import { verifySessionChain } from '@/lib/server/records/verify';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let host: { id: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('chain');
});
afterAll(closeTestDb);

describe('per-session hash chain', () => {
  it('is SHA-256 over the previous link and the canonical JSON, from an empty start', async () => {
    const records = [0, 1].map((i) => makeRecord('c', i));
    await ingestRecords(host.id, records);
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    // Computed here, independently of lib/server/records/chain.ts.
    const first = sha(canonicalJson(records[0]));
    expect(rows[0]).toMatchObject({ prevHash: null, chainHash: first });
    expect(rows[1]).toMatchObject({
      prevHash: first,
      chainHash: sha(first + canonicalJson(records[1])),
    });
    expect(rows[0].contentHash).toBe(sha(canonicalJson(records[0])));
  });

  it('verifies an untouched session and counts what it checked', async () => {
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('c', i)),
    );
    await ingestRecords(
      host.id,
      [3, 4].map((i) => makeRecord('c', i)),
    );
    expect(await verifySessionChain(host.id, 'c')).toEqual({
      ok: true,
      checked: 5,
      firstBrokenSequence: null,
      gaps: [],
    });
  });

  it('detects a row edited with raw SQL', async () => {
    await ingestRecords(
      host.id,
      [0, 1, 2, 3].map((i) => makeRecord('c', i)),
    );
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET record = jsonb_set(record, '{verdict,decision}', '"deny"')
       WHERE "sessionId" = 'c' AND sequence = 2`,
    );
    const result = await verifySessionChain(host.id, 'c');
    expect(result).toMatchObject({ ok: false, checked: 4, firstBrokenSequence: 2 });
  });

  it('detects a row deleted with raw SQL (the next link no longer fits)', async () => {
    await ingestRecords(
      host.id,
      [0, 1, 2, 3].map((i) => makeRecord('c', i)),
    );
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(`DELETE FROM "InterceptionRecord" WHERE sequence = 1`);
    const result = await verifySessionChain(host.id, 'c');
    expect(result).toMatchObject({
      ok: false,
      firstBrokenSequence: 2,
      gaps: [{ after: 0, before: 2 }],
    });
  });

  it('reports sequence gaps, a late arrival fills one, and the chain still verifies', async () => {
    await ingestRecords(
      host.id,
      [0, 1, 4, 5, 9].map((i) => makeRecord('g', i)),
    );
    expect(await verifySessionChain(host.id, 'g')).toEqual({
      ok: false,
      checked: 5,
      firstBrokenSequence: null,
      gaps: [
        { after: 1, before: 4 },
        { after: 5, before: 9 },
      ],
    });
    // Parallel tool calls finish out of order: 2 and 3 arrive after 9.
    await ingestRecords(
      host.id,
      [3, 2].map((i) => makeRecord('g', i)),
    );
    expect(await verifySessionChain(host.id, 'g')).toEqual({
      ok: false,
      checked: 7,
      firstBrokenSequence: null,
      gaps: [{ after: 5, before: 9 }],
    });
  });

  it('flags a session that does not start at 0', async () => {
    await ingestRecords(
      host.id,
      [3, 4].map((i) => makeRecord('late', i)),
    );
    expect((await verifySessionChain(host.id, 'late')).gaps).toEqual([{ after: -1, before: 3 }]);
  });

  it('an unknown session verifies as empty', async () => {
    expect(await verifySessionChain(host.id, 'nope')).toEqual({
      ok: true,
      checked: 0,
      firstBrokenSequence: null,
      gaps: [],
    });
  });
});
