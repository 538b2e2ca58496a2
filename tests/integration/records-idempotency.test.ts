import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/server/http/api-error';
import { ingestRecords } from '@/lib/server/records/ingest';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

async function snapshot() {
  const prisma = await testDb();
  return {
    records: await prisma.interceptionRecord.findMany({
      orderBy: { id: 'asc' },
      select: { sessionId: true, sequence: true, chainHash: true },
    }),
    chains: await prisma.sessionChain.findMany({
      select: { sessionId: true, headHash: true, recordCount: true, lastSequence: true },
    }),
  };
}

let host: { id: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('idem');
});
afterAll(closeTestDb);

describe('idempotency per (host, session_id, sequence)', () => {
  it('acknowledges an identical record sent again as a duplicate, storing it once', async () => {
    const batch = [makeRecord('s', 0), makeRecord('s', 1)];
    expect(await ingestRecords(host.id, batch)).toEqual({ accepted: 2, duplicates: 0 });
    const before = await snapshot();
    // Same content, other member order: canonical JSON makes them identical.
    const reordered = Object.fromEntries(Object.entries(makeRecord('s', 1)).reverse());
    expect(
      await ingestRecords(host.id, [makeRecord('s', 0), reordered, makeRecord('s', 2)]),
    ).toEqual({
      accepted: 1,
      duplicates: 2,
    });
    const after = await snapshot();
    expect(after.records.slice(0, 2)).toEqual(before.records);
    expect(after.records).toHaveLength(3);
  });

  it('answers 409 record_conflict for a different record under a stored key, storing nothing', async () => {
    await ingestRecords(host.id, [makeRecord('s', 0), makeRecord('s', 1)]);
    const before = await snapshot();
    const changed = makeRecord('s', 1, { verdict: { decision: 'deny' } });
    const err = await refusal(ingestRecords(host.id, [makeRecord('s', 2), changed]));
    expect(err.status).toBe(409);
    expect(err.code).toBe('record_conflict');
    expect(err.details).toEqual({ conflicts: [{ index: 1, session_id: 's', sequence: 1 }] });
    expect(await snapshot()).toEqual(before);
  });

  it('handles repeats inside one request the same way', async () => {
    expect(await ingestRecords(host.id, [makeRecord('s', 0), makeRecord('s', 0)])).toEqual({
      accepted: 1,
      duplicates: 1,
    });
    const err = await refusal(
      ingestRecords(host.id, [makeRecord('t', 0), makeRecord('t', 0, { mode: 'evaluate_only' })]),
    );
    expect(err.code).toBe('record_conflict');
    expect(err.details).toEqual({ conflicts: [{ index: 1, session_id: 't', sequence: 0 }] });
  });

  it('keys on the host: another host may use the same session id and sequence', async () => {
    const other = await seedHost('idem-2');
    await ingestRecords(host.id, [makeRecord('s', 0)]);
    expect(await ingestRecords(other.id, [makeRecord('s', 0, { mode: 'evaluate_only' })])).toEqual({
      accepted: 1,
      duplicates: 0,
    });
  });

  it('serializes concurrent batches of one session: one chain, nothing lost', async () => {
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 25 }, (_, i) => makeRecord('busy', b * 25 + i)),
    );
    const results = await Promise.all(batches.map((batch) => ingestRecords(host.id, batch)));
    expect(results.reduce((n, r) => n + r.accepted, 0)).toBe(200);
    const prisma = await testDb();
    const chain = await prisma.sessionChain.findFirstOrThrow({ where: { sessionId: 'busy' } });
    expect(chain).toMatchObject({ recordCount: 200, lastSequence: 199 });
    const { verifySessionChain } = await import('@/lib/server/records/verify');
    expect(await verifySessionChain(host.id, 'busy')).toEqual({
      ok: true,
      checked: 200,
      firstBrokenSequence: null,
      gaps: [],
    });
  });

  it('links a record to the approval ticket of the same host, session id and sequence', async () => {
    const prisma = await testDb();
    const ticket = await prisma.approvalTicket.create({
      data: {
        hostId: host.id,
        interceptionPoint: 'pre_tool_call',
        verdict: { decision: 'deny', approval: {} },
        context: {},
        sessionId: 's',
        sequence: 3,
        agentId: 'bot',
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    await ingestRecords(host.id, [
      makeRecord('s', 3, {
        verdict: { decision: 'allow' },
        resolved_by: 'approval',
        decided_by: 0,
      }),
      makeRecord('s', 4),
    ]);
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => r.ticketId)).toEqual([ticket.id, null]);
  });
});
