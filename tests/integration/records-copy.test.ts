import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { toHex } from '@/lib/proof';
import { ApiError } from '@/lib/server/http/api-error';
import { ingestRecords } from '@/lib/server/records/ingest';
import { isSealV2, sealV2Verifies } from '@/lib/server/records/seal';
import { verifySessionChain } from '@/lib/server/records/verify';
import { recordLeafHash } from '@/lib/verify/leaf-data';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { hostFailureRecord, makeRecord, seedHost } from './records-fixtures';

/**
 * What storing a batch with COPY (records/ingest.ts, columns.ts) must not
 * change: text reads back byte for byte whatever COPY's text format treats
 * specially, and a batch that fails anywhere leaves nothing behind.
 */

/** Everything COPY's text format escapes or could mistake for markup, and text beyond ASCII. */
const AWKWARD = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn\r\n',
  'back\\slash \\N \\. \\t \\\\',
  '\\N',
  '\\.',
  '"quoted" \'single\' {"json":[1,2]}',
  'é 中文 🙂 \u0301 \u2028 \u2029 \ufeff \u00a0 \u200d',
  'ctrl \u0001\u0007\u001b\u007f',
];

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

async function state() {
  const prisma = await testDb();
  return {
    records: await prisma.interceptionRecord.findMany({
      orderBy: { id: 'asc' },
      select: { sessionId: true, sequence: true, chainHash: true },
    }),
    chains: await prisma.sessionChain.findMany({
      orderBy: { sessionId: 'asc' },
      select: { sessionId: true, headHash: true, recordCount: true, lastSequence: true },
    }),
  };
}

let host: { id: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('copy');
});
afterAll(closeTestDb);

describe('ingest through COPY', () => {
  it('stores text COPY treats specially byte for byte: columns, record, chain, leaf hash and seal', async () => {
    const session = `s\t\\N\n${AWKWARD[7]}`;
    const agentId = 'agent\twith\\backslash\nand 🙂';
    const records = AWKWARD.map((text, i) =>
      makeRecord(session, i, {
        verdict: { decision: 'deny', reason: text, message: `${text}|${i}` },
        timestamp: `not a date ${text}`,
        input_identity: text,
      }),
    );
    expect(await ingestRecords(host.id, records, { agentId })).toEqual({
      accepted: AWKWARD.length,
      duplicates: 0,
    });

    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({
      where: { hostId: host.id },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => r.sequence)).toEqual(AWKWARD.map((_, i) => i));
    rows.forEach((row, i) => {
      expect(row.sessionId).toBe(session);
      expect(row.agentId).toBe(agentId);
      expect(row.reason).toBe(AWKWARD[i]);
      expect(row.inputIdentity).toBe(AWKWARD[i]);
      expect(row.timestamp).toBeNull();
      expect(canonicalJson(row.record)).toBe(canonicalJson(records[i]));
      // The leaf hash of the row as it reads back (lib/verify, the one
      // definition) is the one ingest stored and sealed.
      const leaf = toHex(
        recordLeafHash({
          hostId: row.hostId,
          sessionId: row.sessionId,
          sequence: row.sequence,
          record: row.record,
          chainHash: row.chainHash,
          prevHash: row.prevHash,
          receivedAt: row.receivedAt.toISOString(),
          agentId: row.agentId,
          ticketId: row.ticketId,
        }),
      );
      expect(row.leafHash).toBe(leaf);
      expect(isSealV2(row.seal)).toBe(true);
      expect(sealV2Verifies(leaf, row.seal as string)).toBe(true);
    });
    // The chain re-hashes the stored records from their start.
    const chain = await verifySessionChain(host.id, session);
    expect(chain).toMatchObject({ ok: true, checked: AWKWARD.length, firstBrokenSequence: null });
    expect(chain.head).toBeUndefined();
    // Sending the same records again is recognised as duplicates, not conflicts.
    expect(await ingestRecords(host.id, records, { agentId })).toEqual({
      accepted: 0,
      duplicates: AWKWARD.length,
    });
  });

  it('a batch with one row conflicting with a stored one stores nothing of it, in any session', async () => {
    await ingestRecords(host.id, [makeRecord('a', 0), makeRecord('a', 1)]);
    const before = await state();
    const batch = [
      ...Array.from({ length: 300 }, (_, i) => makeRecord('b', i)),
      makeRecord('a', 2),
      makeRecord('a', 1, { mode: 'evaluate_only' }),
      hostFailureRecord('beside the conflict'),
      ...Array.from({ length: 300 }, (_, i) => makeRecord('c', i)),
    ];
    const err = await refusal(ingestRecords(host.id, batch));
    expect(err.status).toBe(409);
    expect(err.code).toBe('record_conflict');
    expect(err.details).toEqual({ conflicts: [{ index: 301, session_id: 'a', sequence: 1 }] });
    // The chain rows created for b and c roll back with the rest.
    expect(await state()).toEqual(before);
  });

  it('a row the COPY cannot store (already there behind ingest) fails the whole batch', async () => {
    await ingestRecords(host.id, [makeRecord('a', 0)]);
    const before = await state();
    // A row at a sequence the chain head has not reached: ingest does not
    // look it up (in-order appends skip the lookup), so the COPY meets it.
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(
      `INSERT INTO "InterceptionRecord" ("hostId", "sessionId", "sequence", "interceptionPoint",
         "mode", "decision", "record", "chainHash", "contentHash")
       VALUES ($1::uuid, 'a', 5, 'pre_tool_call', 'enforce', 'allow', '{}', 'x', 'x')`,
      host.id,
    );
    const batch = [
      ...Array.from({ length: 200 }, (_, i) => makeRecord('b', i)),
      ...Array.from({ length: 9 }, (_, i) => makeRecord('a', i + 1)),
    ];
    await expect(ingestRecords(host.id, batch)).rejects.toThrow(/duplicate key|unique/i);
    const after = await state();
    expect(after.chains).toEqual(before.chains);
    expect(after.records.filter((r) => r.chainHash !== 'x')).toEqual(before.records);
  });

  it('stores host failures beside a COPY of chained rows, and dedupes them by content', async () => {
    const batch = [makeRecord('h', 0), hostFailureRecord('one\tfailure\\'), makeRecord('h', 1)];
    expect(await ingestRecords(host.id, batch)).toEqual({ accepted: 3, duplicates: 0 });
    expect(
      await ingestRecords(host.id, [hostFailureRecord('one\tfailure\\'), makeRecord('h', 2)]),
    ).toEqual({ accepted: 1, duplicates: 1 });
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({
      orderBy: { id: 'asc' },
      select: { sessionId: true, sequence: true, hostFailure: true, record: true },
    });
    // Chained rows first (ids in chain order), the failure after them.
    expect(rows.map((r) => [r.sessionId, r.sequence, r.hostFailure])).toEqual([
      ['h', 0, false],
      ['h', 1, false],
      ['', -1, true],
      ['h', 2, false],
    ]);
    expect((rows[2].record as { verdict: { message: string } }).verdict.message).toBe(
      'one\tfailure\\',
    );
    expect(await verifySessionChain(host.id, 'h')).toMatchObject({ ok: true, checked: 3 });
  });
});
