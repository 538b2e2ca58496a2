import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '@checkpoint/agent-hooks';
import { POST } from '@/app/api/v1/records/route';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { receiptForTicket } from '@/lib/server/receipts';
import { bulkRows, chainHeadsInsert, syntheticSession } from '@/lib/server/records/bulk-rows';
import { multiRowInsert, unnestInsert } from '@/lib/server/records/columns';
import {
  closeInProcessRecordSinks,
  inProcessRecordSink,
} from '@/lib/server/records/in-process-sink';
import { ingestRecords } from '@/lib/server/records/ingest';
import { isSealV2, recordSeal, recordSealV2, sealKeyFrom } from '@/lib/server/records/seal';
import { forgetActiveSigningKey } from '@/lib/server/signing';
import { appendAll } from '@/lib/server/transparency/append';
import { checkLeaf } from '@/lib/server/transparency/check-leaf';
import { recordById } from '@/lib/server/transparency/sources';
import { recordLeafHash } from '@/lib/verify/leaf-data';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import {
  hostFailureRecord,
  makeRecord,
  noParams,
  recordsRequest,
  seedHost,
} from './records-fixtures';

/**
 * The appender's guard: rows written straight into the database, the way
 * someone with a database shell would (raw SQL, SHA-256 recomputed), are
 * refused (LogRefusal) and never logged, and never make the genuine rows
 * behind them fail; genuine concurrent ingest is never refused.
 */

// Host API keys only: no browser session.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

let host: { id: string; key: string };

beforeEach(async () => {
  await truncateAll();
  forgetActiveSigningKey();
  host = await seedHost('guard');
});
afterAll(async () => {
  await closeInProcessRecordSinks();
  await closeTestDb();
});

type Forged = {
  sessionId: string;
  sequence: number;
  prevHash: string | null;
  /** Defaults to the correct link over prevHash and the record. */
  chainHash?: string;
  id?: bigint;
};

/** INSERTs one record row as ingest would have written it, with a link an attacker can compute. */
async function forgeRecord(prisma: PrismaClient, f: Forged): Promise<string> {
  const record = makeRecord(f.sessionId, f.sequence, { verdict: { decision: 'allow' } });
  const canonical = canonicalJson(record);
  const chainHash = f.chainHash ?? sha256((f.prevHash ?? '') + canonical);
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO "InterceptionRecord" (${f.id === undefined ? '' : 'id, '}"hostId", "sessionId", sequence,
       "interceptionPoint", mode, decision, "identityProvider", "inputIdentity", "enforcedIdentity",
       timestamp, record, "chainHash", "prevHash", "contentHash")
     VALUES (${f.id === undefined ? '' : `${f.id}, `}$1::uuid, $2, $3, 'pre_tool_call', 'enforce', 'allow',
       'jcs-sha256', $4, $4, '2026-12-02T10:00:00.000Z', $5::jsonb, $6, $7, $8)
     RETURNING id::text AS id`,
    host.id,
    f.sessionId,
    f.sequence,
    record.input_identity,
    canonical,
    chainHash,
    f.prevHash,
    sha256(canonical),
  );
  return rows[0].id;
}

/** Moves the session's chain head onto `id`, as ingest would after storing it. */
async function moveHead(prisma: PrismaClient, sessionId: string, id: string): Promise<void> {
  const r = await prisma.interceptionRecord.findUniqueOrThrow({ where: { id: BigInt(id) } });
  await prisma.$executeRawUnsafe(
    `INSERT INTO "SessionChain" ("hostId", "sessionId", "lastSequence", "headHash", "recordCount", "updatedAt")
     VALUES ($1::uuid, $2, $3, $4, 1, now())
     ON CONFLICT ("hostId", "sessionId") DO UPDATE SET "headHash" = $4, "lastSequence" = $3,
       "recordCount" = "SessionChain"."recordCount" + 1`,
    host.id,
    sessionId,
    r.sequence,
    r.chainHash,
  );
}

/** The seal of a stored row under `secret` (an APP_ENCRYPTION_KEY), as its columns read. */
async function sealUnder(prisma: PrismaClient, id: string, secret: string): Promise<string> {
  const [r] = await prisma.$queryRawUnsafe<
    {
      hostId: string;
      sessionId: string;
      sequence: number;
      chainHash: string;
      prevHash: string | null;
      receivedAt: string;
    }[]
  >(
    `SELECT "hostId"::text AS "hostId", "sessionId", sequence, "chainHash", "prevHash",
       to_char("receivedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "receivedAt"
     FROM "InterceptionRecord" WHERE id = $1::bigint`,
    id,
  );
  return recordSeal(r, sealKeyFrom(secret));
}

async function refusals(prisma: PrismaClient) {
  const rows = await prisma.logRefusal.findMany({ orderBy: { refId: 'asc' } });
  return rows.map((r) => ({ kind: r.kind, refId: r.refId, reason: r.reason }));
}

async function headOf(prisma: PrismaClient, sessionId: string): Promise<string> {
  const c = await prisma.sessionChain.findUniqueOrThrow({
    where: { hostId_sessionId: { hostId: host.id, sessionId } },
  });
  return c.headHash;
}

/** A record's leaf is the LogLeaf row naming it. */
async function logged(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.logLeaf.count({ where: { kind: 'record', refId: id } })) === 1;
}

/** Records with no leaf (whatever the appender did with them). */
async function unloggedRecords(prisma: PrismaClient): Promise<number> {
  const [{ n }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "InterceptionRecord" r
     WHERE NOT EXISTS (SELECT 1 FROM "LogLeaf" l WHERE l.kind = 'record' AND l."refId" = r.id::text)`,
  );
  return n;
}

describe('log appender guard', () => {
  it('refuses a record inserted into the middle of a logged session', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('mid', i)),
    );
    // Ids a rolled-back or conflicting insert consumed: a gap the forger fills.
    await prisma.$queryRawUnsafe(
      `SELECT nextval(pg_get_serial_sequence('"InterceptionRecord"', 'id')) FROM generate_series(1, 3)`,
    );
    await ingestRecords(
      host.id,
      [3, 4].map((i) => makeRecord('mid', i)),
    );
    await appendAll(prisma);
    const r2 = await prisma.interceptionRecord.findFirstOrThrow({
      where: { sessionId: 'mid', sequence: 2 },
    });
    const forged = await forgeRecord(prisma, {
      id: r2.id + 1n,
      sessionId: 'mid',
      sequence: 9,
      prevHash: r2.chainHash,
    });
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 0, refused: 1, size: 5 });
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: forged, reason: 'inserted_before_logged' },
    ]);
    expect(await logged(prisma, forged)).toBe(false);
    // Refused once: a later pass neither refuses it again nor logs it.
    expect(await appendAll(prisma)).toMatchObject({ appended: 0, refused: 0 });
  });

  it('refuses a forged tail with a bad link, and the genuine records after it are logged', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('tail', i)),
    );
    await appendAll(prisma);
    const bad = await forgeRecord(prisma, {
      sessionId: 'tail',
      sequence: 3,
      prevHash: await headOf(prisma, 'tail'),
      chainHash: 'ab'.repeat(32),
    });
    // Genuine ingest goes on from the chain head, after the forged row in id order.
    await ingestRecords(
      host.id,
      [4, 5].map((i) => makeRecord('tail', i)),
    );
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 2, refused: 1, size: 5 });
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: bad, reason: 'chain_link_invalid' },
    ]);
    const genuine = await prisma.interceptionRecord.findMany({
      where: { sessionId: 'tail', sequence: { in: [4, 5] } },
    });
    for (const r of genuine) expect(await logged(prisma, String(r.id))).toBe(true);
  });

  it('refuses a tail with a correct link that the chain head does not name, and keeps going', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1].map((i) => makeRecord('head', i)),
    );
    await appendAll(prisma);
    const head = await headOf(prisma, 'head');
    const offChain = await forgeRecord(prisma, { sessionId: 'head', sequence: 2, prevHash: head });
    await ingestRecords(host.id, [makeRecord('head', 3)]);
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 1, refused: 1 });
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: offChain, reason: 'off_chain' },
    ]);
    // And alone at the tail (no genuine record after it): the head still says otherwise.
    const alone = await forgeRecord(prisma, {
      sessionId: 'head',
      sequence: 7,
      prevHash: await headOf(prisma, 'head'),
    });
    await appendAll(prisma);
    expect((await refusals(prisma)).find((r) => r.refId === alone)?.reason).toBe('off_chain');
  });

  it('refuses a record received long before what is already logged', async () => {
    const prisma = await testDb();
    await ingestRecords(host.id, [makeRecord('late', 0)]);
    await appendAll(prisma);
    const forged = await forgeRecord(prisma, {
      sessionId: 'late',
      sequence: 1,
      prevHash: await headOf(prisma, 'late'),
    });
    // The forger moves the chain head too, but backdates the row by an hour.
    const f = await prisma.interceptionRecord.update({
      where: { id: BigInt(forged) },
      data: { receivedAt: new Date(Date.now() - 3_600_000) },
    });
    await prisma.sessionChain.update({
      where: { hostId_sessionId: { hostId: host.id, sessionId: 'late' } },
      data: { headHash: f.chainHash, lastSequence: 1 },
    });
    await appendAll(prisma);
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: forged, reason: 'received_before_logged' },
    ]);
  });

  it('refuses a decision whose receipt is another ticket’s, or whose ticket is not decided', async () => {
    const prisma = await testDb();
    const ticket = (sequence: number, status: 'pending' | 'approved') =>
      prisma.approvalTicket.create({
        data: {
          hostId: host.id,
          interceptionPoint: 'pre_tool_call',
          verdict: { decision: 'deny', reason: 'needs_approval' },
          context: {},
          sessionId: 's',
          sequence,
          agentId: 'a',
          expiresAt: new Date(Date.now() + 60_000),
          status,
          decidedAt: status === 'approved' ? new Date() : null,
        },
      });
    const decide = (ticketId: string, receipt: string | null, createdAt = new Date()) =>
      prisma.decision.create({
        data: {
          ticketId,
          outcome: 'approve',
          verdict: { decision: 'allow' },
          decidedByKind: 'human',
          contextIdentity: 'jcs-sha256:x',
          receipt,
          createdAt,
        },
      });
    const genuineTicket = await ticket(1, 'approved');
    const genuine = await decide(genuineTicket.id, null);
    const receipt = await receiptForTicket(genuineTicket.id, { prisma });
    // The forger approves another ticket and reuses the genuine receipt.
    const other = await ticket(2, 'approved');
    const reused = await decide(other.id, receipt);
    // And decides a ticket that is still pending, without a receipt (past the grace).
    const pending = await ticket(3, 'pending');
    const undecided = await decide(pending.id, null, new Date(Date.now() - 120_000));
    // And one with a receipt that is not a signature at all.
    const garbled = await ticket(4, 'approved');
    const garbledDecision = await decide(garbled.id, 'eyJhbGciOiJFZERTQSJ9.e30.AAAA');
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 1, refused: 3 });
    const byRef = new Map((await refusals(prisma)).map((r) => [r.refId, r.reason]));
    expect(byRef.get(reused.id)).toBe('receipt_mismatch');
    expect(byRef.get(undecided.id)).toBe('ticket_not_decided');
    expect(byRef.get(garbledDecision.id)).toBe('receipt_invalid');
    const logged = await prisma.decision.findUniqueOrThrow({ where: { id: genuine.id } });
    expect(logged.logIndex).toBe(0n);
  });

  it('never refuses genuine ingest from concurrent requests in many sessions', async () => {
    const prisma = await testDb();
    const SESSIONS = 12;
    const ROUNDS = 6;
    const PER_BATCH = 3;
    // Each request carries a slice of every session, some in reverse order
    // (a later batch may carry lower sequences), while an appender runs.
    const request = (round: number, part: number) => {
      const lines: string[] = [];
      for (let s = part; s < SESSIONS; s += 3) {
        const seqs = Array.from({ length: PER_BATCH }, (_, k) => round * PER_BATCH + k);
        if ((round + s) % 2 === 1) seqs.reverse();
        for (const q of seqs) lines.push(JSON.stringify(makeRecord(`c${s}`, q)));
      }
      lines.push(JSON.stringify(hostFailureRecord(`failure ${round}:${part}`)));
      return POST(
        recordsRequest(host.key, `${lines.join('\n')}\n`, 'application/x-ndjson'),
        noParams,
      );
    };
    let ingesting = true;
    const appender = (async () => {
      let appended = 0;
      while (ingesting) appended += (await appendAll(prisma, { batch: 17 })).appended;
      return appended;
    })();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // Out-of-order arrival across rounds: round r+1 races round r.
        const answers = await Promise.all(
          [0, 1, 2].flatMap((part) => [request(round, part), request(round + ROUNDS, part)]),
        );
        for (const a of answers) expect(a.status).toBe(200);
      }
    } finally {
      ingesting = false;
    }
    await appender;
    await appendAll(prisma);
    expect(await refusals(prisma)).toEqual([]);
    const total = await prisma.interceptionRecord.count();
    expect(total).toBe(SESSIONS * ROUNDS * 2 * PER_BATCH + ROUNDS * 2 * 3);
    expect(await unloggedRecords(prisma)).toBe(0);
    expect(await prisma.logLeaf.count()).toBe(total);
  });
});

describe('log appender guard: the ingest seal', () => {
  it('refuses a tail with a correct link and a moved chain head but no seal (seal_missing)', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1].map((i) => makeRecord('sealed', i)),
    );
    await appendAll(prisma);
    const forged = await forgeRecord(prisma, {
      sessionId: 'sealed',
      sequence: 2,
      prevHash: await headOf(prisma, 'sealed'),
    });
    await moveHead(prisma, 'sealed', forged);
    // Genuine ingest goes on after it, from the (moved) head; its seal shows
    // ingest linked it there, so it is logged and the forgery alone refused.
    await ingestRecords(host.id, [makeRecord('sealed', 3)]);
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 1, refused: 1, size: 3 });
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: forged, reason: 'seal_missing' },
    ]);
    expect(await logged(prisma, forged)).toBe(false);
  });

  it('refuses the same forgery sealed under another key (seal_invalid), and a genuine seal moved to it', async () => {
    const prisma = await testDb();
    await ingestRecords(host.id, [makeRecord('other-key', 0)]);
    await appendAll(prisma);
    const forged = await forgeRecord(prisma, {
      sessionId: 'other-key',
      sequence: 1,
      prevHash: await headOf(prisma, 'other-key'),
    });
    await moveHead(prisma, 'other-key', forged);
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET seal = $2 WHERE id = $1::bigint`,
      forged,
      await sealUnder(prisma, forged, 'not-this-deployments-app-encryption-key-0123'),
    );
    // A second forgery carries the seal of a genuine row (seals are not transferable).
    await ingestRecords(host.id, [makeRecord('donor', 0)]);
    const donor = await prisma.interceptionRecord.findFirstOrThrow({
      where: { sessionId: 'donor' },
    });
    const copied = await forgeRecord(prisma, { sessionId: 'copied', sequence: 0, prevHash: null });
    await moveHead(prisma, 'copied', copied);
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET seal = $2 WHERE id = $1::bigint`,
      copied,
      donor.seal,
    );
    await appendAll(prisma);
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: forged, reason: 'seal_invalid' },
      { kind: 'record', refId: copied, reason: 'seal_invalid' },
    ]);
    expect(await logged(prisma, donor.id.toString())).toBe(true);
  });

  it('logs genuine records from every writer (API, host failures, in-process sink, seed, bench): all sealed, none refused', async () => {
    const prisma = await testDb();
    const lines = [
      ...[0, 1, 2].map((i) => JSON.stringify(makeRecord('api', i))),
      JSON.stringify(hostFailureRecord('sealed failure')),
    ];
    const answer = await POST(
      recordsRequest(host.key, `${lines.join('\n')}\n`, 'application/x-ndjson'),
      noParams,
    );
    expect(answer.status).toBe(200);
    await ingestRecords(host.id, [makeRecord('direct', 0), hostFailureRecord('direct failure')]);
    const sink = inProcessRecordSink('seal-agent', { flushIntervalMs: 20 });
    for (const i of [0, 1]) sink.push(makeRecord('in-process', i) as never);
    expect(await sink.flush(5_000)).toBe(true);
    // The seed script's statement and the bench's baseline statement.
    const seeded = [
      bulkRows(syntheticSession('seed', 0, 4, { spreadDays: 0, now: Date.now() - 60_000 })),
    ];
    const seed = unnestInsert(host.id, seeded.flat());
    await prisma.$executeRawUnsafe(seed.sql, ...seed.params);
    const heads = chainHeadsInsert(host.id, seeded);
    await prisma.$executeRawUnsafe(heads.sql, ...heads.params);
    const benched = [
      bulkRows(syntheticSession('bench', 1, 3, { spreadDays: 0, now: Date.now() - 60_000 })),
    ];
    const bench = multiRowInsert(host.id, benched.flat());
    await prisma.$executeRawUnsafe(bench.sql, ...bench.params);
    const benchHeads = chainHeadsInsert(host.id, benched);
    await prisma.$executeRawUnsafe(benchHeads.sql, ...benchHeads.params);

    const total = await prisma.interceptionRecord.count();
    expect(total).toBe(4 + 2 + 2 + 4 + 3);
    expect(await prisma.interceptionRecord.count({ where: { seal: null } })).toBe(0);
    const result = await appendAll(prisma);
    expect(await refusals(prisma)).toEqual([]);
    expect(result).toMatchObject({ appended: total, refused: 0 });
  });

  it('accepts rows older than seals (at or below the watermark) until a sealed record is logged, and keeps the watermark from moving', async () => {
    const prisma = await testDb();
    // Two records stored before seals existed: correct links and head, no seal.
    const old0 = await forgeRecord(prisma, { sessionId: 'legacy', sequence: 0, prevHash: null });
    await moveHead(prisma, 'legacy', old0);
    const old1 = await forgeRecord(prisma, {
      sessionId: 'legacy',
      sequence: 1,
      prevHash: await headOf(prisma, 'legacy'),
    });
    await moveHead(prisma, 'legacy', old1);
    // What the migration records: the highest id then, not sealed yet.
    await prisma.$executeRawUnsafe(
      `INSERT INTO "RecordSealWatermark" (id, "maxId") VALUES (1, $1::bigint)`,
      old1,
    );
    // After the upgrade: ingest seals, and an unsealed row above the watermark is a forgery.
    await ingestRecords(host.id, [makeRecord('legacy', 2)]);
    const forged = await forgeRecord(prisma, {
      sessionId: 'legacy',
      sequence: 3,
      prevHash: await headOf(prisma, 'legacy'),
    });
    await moveHead(prisma, 'legacy', forged);
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 3, refused: 1 });
    expect(await refusals(prisma)).toEqual([
      { kind: 'record', refId: forged, reason: 'seal_missing' },
    ]);
    expect(await logged(prisma, old0)).toBe(true);
    expect(await logged(prisma, old1)).toBe(true);
    // The appender sealed the watermark on first use.
    const [w] = await prisma.$queryRawUnsafe<{ seal: string | null }[]>(
      `SELECT seal FROM "RecordSealWatermark" WHERE id = 1`,
    );
    expect(w.seal).toMatch(/^[0-9a-f]{64}$/);

    // A database shell raises the watermark (its seal no longer fits) and
    // inserts an unsealed session below it: refused.
    const raised = await forgeRecord(prisma, { sessionId: 'raised', sequence: 0, prevHash: null });
    await moveHead(prisma, 'raised', raised);
    await prisma.$executeRawUnsafe(`UPDATE "RecordSealWatermark" SET "maxId" = $1::bigint`, raised);
    // And, with the seal removed too, the newest logged record's seal gives it away.
    const nulled = await forgeRecord(prisma, { sessionId: 'nulled', sequence: 0, prevHash: null });
    await moveHead(prisma, 'nulled', nulled);
    await appendAll(prisma);
    await prisma.$executeRawUnsafe(
      `UPDATE "RecordSealWatermark" SET "maxId" = $1::bigint, seal = NULL`,
      nulled,
    );
    const late = await forgeRecord(prisma, { sessionId: 'late-null', sequence: 0, prevHash: null });
    await moveHead(prisma, 'late-null', late);
    await prisma.$executeRawUnsafe(`UPDATE "RecordSealWatermark" SET "maxId" = $1::bigint`, late);
    await appendAll(prisma);
    const byRef = new Map((await refusals(prisma)).map((r) => [r.refId, r.reason]));
    expect(byRef.get(raised)).toBe('seal_missing');
    expect(byRef.get(nulled)).toBe('seal_missing');
    expect(byRef.get(late)).toBe('seal_missing');
    const [after] = await prisma.$queryRawUnsafe<{ seal: string | null }[]>(
      `SELECT seal FROM "RecordSealWatermark" WHERE id = 1`,
    );
    expect(after.seal).toBeNull();
  });
});

/** recordLeafHash (the one definition) of the row as the log reads it, hex. */
async function leafOfRow(prisma: PrismaClient, id: string): Promise<string> {
  const row = await recordById(prisma, id);
  if (!row) throw new Error(`no record ${id}`);
  return Buffer.from(recordLeafHash(row)).toString('hex');
}

async function stored(prisma: PrismaClient, id: string) {
  const [r] = await prisma.$queryRawUnsafe<
    { leafHash: string | null; seal: string | null; logIndex: string | null }[]
  >(
    `SELECT r."leafHash", r.seal, l."index"::text AS "logIndex" FROM "InterceptionRecord" r
     LEFT JOIN "LogLeaf" l ON l.kind = 'record' AND l."refId" = r.id::text WHERE r.id = $1::bigint`,
    id,
  );
  return r;
}

describe('log appender guard: seal v2 (the leaf hash ingest computed)', () => {
  it('ingest stores each record its own leaf hash under a v2 seal, and the log holds exactly that leaf', async () => {
    const prisma = await testDb();
    // Text that canonical JSON escapes or reorders, and the splice's slot text in a value.
    const session = 'v2 "record":null \\ é 😀';
    const ticket = await prisma.approvalTicket.create({
      data: {
        hostId: host.id,
        interceptionPoint: 'pre_tool_call',
        verdict: { decision: 'deny', reason: 'needs_approval', approval: {} },
        context: {},
        sessionId: session,
        sequence: 1,
        agentId: 'a',
        expiresAt: new Date(Date.now() + 60_000),
        status: 'approved',
      },
    });
    await ingestRecords(
      host.id,
      [
        makeRecord(session, 0, { interceptors_registered: 1e21 }),
        makeRecord(session, 1, { resolved_by: 'approval' }),
        hostFailureRecord('failure "record":null'),
      ],
      { agentId: 'agent "q" \u00e9' },
    );
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { id: 'asc' } });
    expect(rows).toHaveLength(3);
    expect(rows[1].ticketId).toBe(ticket.id);
    for (const r of rows) {
      const { leafHash, seal } = await stored(prisma, String(r.id));
      expect(leafHash).toBe(await leafOfRow(prisma, String(r.id)));
      expect(isSealV2(seal)).toBe(true);
      expect(seal).toBe(recordSealV2(leafHash as string));
    }
    expect(await appendAll(prisma)).toMatchObject({ appended: 3, refused: 0 });
    for (const r of rows) {
      const { leafHash, logIndex } = await stored(prisma, String(r.id));
      const [node] = await prisma.$queryRawUnsafe<{ hash: string }[]>(
        `SELECT encode(hash, 'hex') AS hash FROM "LogNode" WHERE level = 0 AND "index" = $1::bigint`,
        logIndex,
      );
      expect(node.hash).toBe(leafHash);
      expect(await checkLeaf(prisma, String(r.id))).toMatchObject({ status: 'ok' });
    }
  });

  it('refuses a row whose leaf hash was changed in SQL, or whose v2 seal is forged, and logs the rest', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('v2-alt', i)),
    );
    const [r0, r1, r2] = (
      await prisma.interceptionRecord.findMany({
        where: { sessionId: 'v2-alt' },
        orderBy: { id: 'asc' },
      })
    ).map((r) => String(r.id));
    // The leaf hash of other content, under the row's own (genuine) seal.
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET "leafHash" = $2 WHERE id = $1::bigint`,
      r1,
      sha256('other content'),
    );
    // A forgery with its correct leaf hash, sealed v2 under another key…
    const forged = await forgeRecord(prisma, {
      sessionId: 'v2-forged',
      sequence: 0,
      prevHash: null,
    });
    await moveHead(prisma, 'v2-forged', forged);
    const forgedLeaf = await leafOfRow(prisma, forged);
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET "leafHash" = $2, seal = $3 WHERE id = $1::bigint`,
      forged,
      forgedLeaf,
      recordSealV2(forgedLeaf, sealKeyFrom('not-this-deployments-app-encryption-key-0123')),
    );
    // …and one whose "seal" is the unkeyed hash a database shell can compute.
    const unkeyed = await forgeRecord(prisma, {
      sessionId: 'v2-unkeyed',
      sequence: 0,
      prevHash: null,
    });
    await moveHead(prisma, 'v2-unkeyed', unkeyed);
    const unkeyedLeaf = await leafOfRow(prisma, unkeyed);
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET "leafHash" = $2, seal = $3 WHERE id = $1::bigint`,
      unkeyed,
      unkeyedLeaf,
      `v2:${sha256(JSON.stringify(['record', 2, unkeyedLeaf]))}`,
    );
    // A v2 seal without its leaf hash.
    await ingestRecords(host.id, [makeRecord('v2-nulled', 0)]);
    const nulled = String(
      (await prisma.interceptionRecord.findFirstOrThrow({ where: { sessionId: 'v2-nulled' } })).id,
    );
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET "leafHash" = NULL WHERE id = $1::bigint`,
      nulled,
    );
    const result = await appendAll(prisma);
    expect(result).toMatchObject({ appended: 2, refused: 4 });
    expect(await refusals(prisma)).toEqual(
      [r1, forged, unkeyed, nulled]
        .map((refId) => ({ kind: 'record', refId, reason: 'seal_invalid' }))
        .sort((a, b) => (a.refId < b.refId ? -1 : 1)),
    );
    expect(await logged(prisma, r0)).toBe(true);
    expect(await logged(prisma, r2)).toBe(true);
    for (const id of [r1, forged, unkeyed, nulled]) expect(await logged(prisma, id)).toBe(false);
  });

  it('logs a v2 row edited after ingest with the leaf ingest computed, so the edit is reported altered', async () => {
    const prisma = await testDb();
    await ingestRecords(
      host.id,
      [0, 1].map((i) => makeRecord('v2-edit', i)),
    );
    const [r0, r1] = (
      await prisma.interceptionRecord.findMany({
        where: { sessionId: 'v2-edit' },
        orderBy: { id: 'asc' },
      })
    ).map((r) => String(r.id));
    const genuine = (await stored(prisma, r1)).leafHash;
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord"
       SET record = jsonb_set(record, '{verdict}', '{"decision":"deny","reason":"edited"}'),
           decision = 'deny', reason = 'edited'
       WHERE id = $1::bigint`,
      r1,
    );
    expect(await appendAll(prisma)).toMatchObject({ appended: 2, refused: 0 });
    const [node] = await prisma.$queryRawUnsafe<{ hash: string }[]>(
      `SELECT encode(n.hash, 'hex') AS hash FROM "LogNode" n
       JOIN "LogLeaf" l ON l."index" = n."index"
       WHERE n.level = 0 AND l.kind = 'record' AND l."refId" = $1`,
      r1,
    );
    expect(node.hash).toBe(genuine);
    expect(await checkLeaf(prisma, r0)).toMatchObject({ status: 'ok' });
    expect(await checkLeaf(prisma, r1)).toMatchObject({ status: 'altered' });
  });
});
