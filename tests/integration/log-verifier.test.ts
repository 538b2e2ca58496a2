import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactSign, exportJWK, importJWK } from 'jose';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Before any import reads the configuration: a loopback witness, our own head file.
const scratch = vi.hoisted(() => {
  const dir = `${process.env.TMPDIR ?? '/tmp'}/ck-verifier-${process.pid}-${Date.now()}`;
  process.env.TREE_HEAD_FILE = `${dir}/tree-heads.jsonl`;
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
  return dir;
});

import { logVerifyJob } from '@/lib/server/jobs/log-verify';
import { scheduleLogVerify } from '@/lib/server/transparency/verify-schedule';
import { moduleLogger } from '@/lib/server/logger';
import { renderMetrics } from '@/lib/server/metrics/render';
import { guardOptionsFromConfig } from '@/lib/server/net/ssrf';
import { ingestRecords } from '@/lib/server/records/ingest';
import { runRecordsRetention } from '@/lib/server/records/retention';
import { signJws } from '@/lib/server/signing/jws';
import { appendAll } from '@/lib/server/transparency/append';
import { treeHeadFilePath } from '@/lib/server/transparency/publish-head';
import { TREE_HEAD_TYP, issueTreeHead } from '@/lib/server/transparency/tree-head';
import { verifyLog } from '@/lib/server/transparency/verifier';
import { LOG_VERIFY_LEASE_KEY, runLogVerification } from '@/lib/server/transparency/verify-run';
import { notifyWitness, registerWitness } from '@/lib/server/transparency/witnesses';
import { verifyWebhook } from '@/lib/server/webhooks/signing';
import type { IntegrityFinding } from '@/lib/verify/findings';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

let host: { id: string; key: string };

beforeEach(async () => {
  await truncateAll();
  rmSync(treeHeadFilePath(), { force: true });
  host = await seedHost('verifier');
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await closeTestDb();
});

/** A decided ticket; its decision is old enough to be logged without a receipt (leaf 0). */
async function seedDecision(): Promise<{ ticketId: string; decisionId: string }> {
  const prisma = await testDb();
  const ticket = await prisma.approvalTicket.create({
    data: {
      hostId: host.id,
      interceptionPoint: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'needs_approval' },
      context: {},
      sessionId: 's1',
      sequence: 3,
      agentId: 'a',
      expiresAt: new Date(Date.now() + 60_000),
      status: 'approved',
    },
  });
  const decision = await prisma.decision.create({
    data: {
      ticketId: ticket.id,
      outcome: 'approve',
      verdict: { decision: 'allow' },
      decidedByKind: 'human',
      contextIdentity: 'jcs-sha256:1',
      createdAt: new Date(Date.now() - 120_000),
    },
  });
  return { ticketId: ticket.id, decisionId: decision.id };
}

/** Two sessions of records and a decision in the log, with two signed heads. */
async function seedLog(): Promise<void> {
  const prisma = await testDb();
  await seedDecision();
  await ingestRecords(
    host.id,
    [0, 1, 2, 3].map((i) => makeRecord('s1', i)),
  );
  await appendAll(prisma);
  await issueTreeHead(prisma);
  await ingestRecords(
    host.id,
    [0, 1, 2].map((i) => makeRecord('s2', i)),
  );
  await appendAll(prisma);
  await issueTreeHead(prisma);
}

async function recordId(sessionId: string, sequence: number): Promise<string> {
  const prisma = await testDb();
  const row = await prisma.interceptionRecord.findFirstOrThrow({
    where: { sessionId, sequence },
    select: { id: true },
  });
  return String(row.id);
}

const failures = (fs: IntegrityFinding[]) =>
  fs.filter((f) => f.problem !== 'not_logged' && f.problem !== 'deleted_by_retention');

describe('verifyLog', () => {
  it('passes a clean log and checks every leaf against every stored head', async () => {
    await seedLog();
    const result = await verifyLog(await testDb(), { chunk: 3 });
    expect(result.findings).toEqual([]);
    expect(result).toMatchObject({ ok: true, size: 8, checkedLeaves: 8, firstFailure: null });
  });

  it('names a decision whose outcome was updated (altered)', async () => {
    await seedLog();
    const prisma = await testDb();
    const decision = await prisma.decision.findFirstOrThrow();
    await prisma.decision.update({ where: { id: decision.id }, data: { outcome: 'reject' } });
    const result = await verifyLog(prisma);
    expect(result.firstFailure).toMatchObject({
      problem: 'altered',
      subject: 'decision',
      ticketId: decision.ticketId,
      hostId: host.id,
      leafIndex: Number(decision.logIndex),
    });
    expect(result.firstFailure?.detail).toContain(decision.id);
  });

  it('names a record whose displayed column was updated (altered)', async () => {
    await seedLog();
    const id = await recordId('s1', 2);
    const prisma = await testDb();
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET decision = 'deny' WHERE id = $1::bigint`,
      id,
    );
    const result = await verifyLog(prisma);
    expect(result.ok).toBe(false);
    expect(result.firstFailure).toMatchObject({
      problem: 'altered',
      recordId: id,
      sessionId: 's1',
      sequence: 2,
      hostId: host.id,
      leafIndex: 3,
    });
    expect(result.firstFailure?.detail).toContain('decision');
  });

  it('names a record deleted from the middle (missing) and a deleted tail (truncated)', async () => {
    await seedLog();
    const prisma = await testDb();
    const middle = await recordId('s1', 1);
    const tail = await recordId('s2', 2);
    await prisma.$executeRawUnsafe(
      `DELETE FROM "InterceptionRecord" WHERE id IN ($1::bigint, $2::bigint)`,
      middle,
      tail,
    );
    const result = await verifyLog(prisma);
    expect(result.ok).toBe(false);
    const missing = result.findings.filter((f) => f.problem === 'missing');
    expect(missing.map((f) => [f.recordId, f.leafIndex])).toEqual([
      [middle, 2],
      [tail, 7],
    ]);
    expect(result.findings).toContainEqual(
      expect.objectContaining({ problem: 'truncated', sessionId: 's2', hostId: host.id }),
    );
  });

  it('calls a row that names another row’s leaf, or was never logged, forged', async () => {
    await seedLog();
    const prisma = await testDb();
    // Ingested but never appended, and backdated: the appender took later rows.
    await ingestRecords(host.id, [makeRecord('s3', 0)]);
    const late = await recordId('s3', 0);
    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET "receivedAt" = now() - interval '2 hours' WHERE id = $1::bigint`,
      late,
    );
    const result = await verifyLog(prisma, { notLoggedGraceMs: 60_000 });
    expect(failures(result.findings)).toEqual([
      expect.objectContaining({ problem: 'forged', recordId: late, sessionId: 's3', sequence: 0 }),
    ]);
    // The leaf of s1/3 made to name the same row (a record's leaf is its LogLeaf row).
    const owner = await prisma.interceptionRecord.findFirstOrThrow({
      where: { sessionId: 's1', sequence: 3 },
    });
    const ownerLeaf = await prisma.logLeaf.findUniqueOrThrow({
      where: { kind_refId: { kind: 'record', refId: String(owner.id) } },
    });
    await prisma.$executeRawUnsafe(
      `UPDATE "LogLeaf" SET "refId" = $2 WHERE "index" = $1::bigint`,
      Number(ownerLeaf.index),
      late,
    );
    const again = await verifyLog(prisma, { notLoggedGraceMs: 60_000 });
    // The row does not hash to the leaf it took…
    expect(again.findings).toContainEqual(
      expect.objectContaining({
        problem: 'altered',
        recordId: late,
        leafIndex: Number(ownerLeaf.index),
      }),
    );
  });

  it('calls a row the appender refused forged, naming it', async () => {
    await seedLog();
    const prisma = await testDb();
    const { ticketId, decisionId } = await seedDecision();
    // A receipt that is no signature by this deployment: the appender refuses the row.
    await prisma.decision.update({
      where: { id: decisionId },
      data: { receipt: 'bm90.YSByZWNlaXB0.c2lnbmF0dXJl' },
    });
    await appendAll(prisma);
    const result = await verifyLog(prisma);
    expect(failures(result.findings)).toEqual([
      expect.objectContaining({ problem: 'forged', subject: 'decision', ticketId }),
    ]);
    expect(result.firstFailure?.detail).toContain(decisionId);
  });

  it('refuses a stored head signed by another key, and one whose root the leaves do not give', async () => {
    await seedLog();
    const prisma = await testDb();
    const { privateKey } = generateKeyPairSync('ed25519');
    const other = await importJWK({ ...(await exportJWK(privateKey)), alg: 'EdDSA' }, 'EdDSA');
    const head = await prisma.treeHead.findFirstOrThrow({ where: { size: 5n } });
    const payload = {
      kid: head.kid,
      root_hash: head.rootHash,
      size: 5,
      timestamp: head.timestamp.getTime(),
    };
    const forged = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', kid: head.kid, typ: TREE_HEAD_TYP })
      .sign(other);
    await prisma.treeHead.update({ where: { size: 5n }, data: { jws: forged } });
    const bad = await verifyLog(prisma);
    expect(bad.firstFailure).toMatchObject({ problem: 'tree_head_invalid', subject: 'tree_head' });
    expect(bad.firstFailure?.detail).toContain('size 5');

    // Signed with the real key, but over a root the stored leaves do not give.
    const wrongRoot = 'ab'.repeat(32);
    const jws = await signJws({ ...payload, root_hash: wrongRoot }, { typ: TREE_HEAD_TYP });
    await prisma.treeHead.update({ where: { size: 5n }, data: { jws, rootHash: wrongRoot } });
    const inconsistent = await verifyLog(prisma);
    expect(inconsistent.firstFailure).toMatchObject({ problem: 'inconsistent' });
  });

  it('reports records removed by retention as deleted_by_retention, and still passes', async () => {
    await seedLog();
    const prisma = await testDb();
    const gone = await recordId('s1', 0);
    await prisma.sessionChain.updateMany({
      where: { sessionId: 's1' },
      data: { updatedAt: new Date(Date.now() - 400 * 86_400_000) },
    });
    await runRecordsRetention(prisma, { trigger: 'manual' });
    const leaves = await prisma.logLeaf.findMany({
      where: { prunedAt: { not: null } },
      orderBy: { index: 'asc' },
    });
    // The decision (leaf 0) stays: retention deletes records only.
    expect(leaves.map((l) => Number(l.index))).toEqual([1, 2, 3, 4]);
    const result = await verifyLog(prisma);
    expect(result.ok).toBe(true);
    expect(result.findings).toHaveLength(4);
    expect(result.findings[0]).toMatchObject({
      problem: 'deleted_by_retention',
      recordId: gone,
      leafIndex: 1,
    });
  });
});

describe('tree heads outside the database', () => {
  it('appends every issued head to the local file, and the verifier checks against it', async () => {
    await seedLog();
    const file = treeHeadFilePath();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.size)).toEqual([5, 8]);
    expect(lines[0]).toMatchObject({ size: 5, jws: expect.any(String), kid: expect.any(String) });
    expect((await verifyLog(await testDb())).ok).toBe(true);

    // A head once shown (signed, in the file) that the log no longer extends.
    const root = 'cd'.repeat(32);
    const jws = await signJws(
      { kid: lines[0].kid, root_hash: root, size: 2, timestamp: Date.now() },
      { typ: TREE_HEAD_TYP },
    );
    writeFileSync(
      file,
      `${JSON.stringify({ size: 2, root_hash: root, kid: lines[0].kid, jws })}\n`,
      { flag: 'a' },
    );
    const result = await verifyLog(await testDb());
    expect(result.firstFailure).toMatchObject({ problem: 'inconsistent', subject: 'tree_head' });
    expect(result.firstFailure?.detail).toContain('tree-head file line 3');
  });
});

describe('witnesses', () => {
  let server: http.Server;
  let received: { headers: http.IncomingHttpHeaders; body: string }[];
  let status = 200;

  beforeEach(async () => {
    received = [];
    status = 200;
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/heads`;

  it('POSTs each new head signed with the witness secret, and checks the log against what it acknowledged', async () => {
    const prisma = await testDb();
    const admin = await prisma.user.create({
      data: { email: 'w@example.test', roles: ['admin'] },
    });
    const { id, secret } = await registerWitness(prisma, admin.id, url(), guardOptionsFromConfig());
    expect(secret).toMatch(/^whsec_/);
    await seedLog();
    const queued = await prisma.outboxEvent.findMany({ where: { kind: 'witness.notify' } });
    expect(queued.map((q) => q.payload)).toEqual([
      { witnessId: id, size: 5 },
      { witnessId: id, size: 8 },
    ]);
    for (const size of [5, 8]) await notifyWitness(prisma, id, size);
    expect(received).toHaveLength(2);
    const body = JSON.parse(received[1].body);
    expect(body).toMatchObject({ type: 'checkpoint.tree_head', tree_head: { size: 8 } });
    const head = await prisma.treeHead.findFirstOrThrow({ where: { size: 8n } });
    expect(body.tree_head.jws).toBe(head.jws);
    expect(verifyWebhook(secret, received[1].headers, received[1].body)).toEqual({ ok: true });
    expect(
      await prisma.witnessHead.count({ where: { witnessId: id, acknowledgedAt: { not: null } } }),
    ).toBe(2);
    expect((await verifyLog(prisma)).ok).toBe(true);

    // The database rewritten after the witness saw size 8: its head no longer fits.
    rmSync(treeHeadFilePath(), { force: true });
    await prisma.$executeRawUnsafe(`DELETE FROM "TreeHead" WHERE size = 8`);
    await prisma.$executeRawUnsafe(
      `UPDATE "LogNode" SET hash = decode(repeat('11', 32), 'hex') WHERE level = 0 AND "index" = 6`,
    );
    const result = await verifyLog(prisma);
    expect(result.findings).toContainEqual(
      expect.objectContaining({ problem: 'inconsistent', subject: 'tree_head' }),
    );
    expect(result.findings.find((f) => f.problem === 'inconsistent')?.detail).toContain(url());
  });

  it('records a failed delivery on the witness and throws so the job is retried', async () => {
    const prisma = await testDb();
    const admin = await prisma.user.create({
      data: { email: 'w2@example.test', roles: ['admin'] },
    });
    const { id } = await registerWitness(prisma, admin.id, url(), guardOptionsFromConfig());
    await seedLog();
    status = 503;
    await expect(notifyWitness(prisma, id, 5)).rejects.toThrow(/http_503/);
    const w = await prisma.witness.findUniqueOrThrow({ where: { id } });
    expect(w).toMatchObject({ consecutiveFailures: 1, lastError: expect.stringContaining('503') });
    const head = await prisma.witnessHead.findUniqueOrThrow({
      where: { witnessId_size: { witnessId: id, size: 5n } },
    });
    expect(head).toMatchObject({ acknowledgedAt: null, attempts: 1 });
  });

  it('refuses a witness URL the SSRF guard refuses', async () => {
    const prisma = await testDb();
    const admin = await prisma.user.create({
      data: { email: 'w3@example.test', roles: ['admin'] },
    });
    await expect(
      registerWitness(prisma, admin.id, 'https://10.0.0.1/heads', guardOptionsFromConfig()),
    ).rejects.toMatchObject({ code: 'webhook_url_blocked' });
    expect(await prisma.witness.count()).toBe(0);
  });
});

describe('the scheduled job', () => {
  const ctx = async () => ({
    db: await testDb(),
    log: moduleLogger('test'),
    jobId: 'log.verify.test',
    attempt: 1,
  });

  it('is proposed once per interval, runs, stores its result and exposes the metrics', async () => {
    await seedLog();
    const prisma = await testDb();
    expect(await scheduleLogVerify(prisma)).toBe(true);
    expect(await scheduleLogVerify(prisma)).toBe(false);
    await logVerifyJob.handler({ trigger: 'schedule' }, await ctx());
    const runs = await prisma.logVerification.findMany();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ ok: true, size: 8n, checkedLeaves: 8n, failureCount: 0 });
    // The next slot's run is proposed by the one that ran.
    expect(await prisma.outboxEvent.count({ where: { kind: 'log.verify' } })).toBe(2);
    const text = await renderMetrics();
    expect(text).toMatch(/^checkpoint_log_verify_ok 1$/m);
    expect(text).toMatch(/^checkpoint_log_verify_failures 0$/m);
    expect(text).toMatch(/^checkpoint_log_verify_last_run_timestamp_seconds \d+/m);

    await prisma.$executeRawUnsafe(
      `UPDATE "InterceptionRecord" SET reason = 'x' WHERE sequence = 0`,
    );
    await logVerifyJob.handler({ trigger: 'manual' }, await ctx());
    const after = await renderMetrics();
    expect(after).toMatch(/^checkpoint_log_verify_ok 0$/m);
    expect(after).toMatch(/^checkpoint_log_verify_failures 2$/m);
  });

  it('never overlaps another run', async () => {
    const prisma = await testDb();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = runLogVerification(prisma, 'manual', async (p) => {
      await held;
      return verifyLog(p);
    });
    // The first run holds the lease until it finishes.
    await vi.waitFor(async () =>
      expect(await prisma.appSetting.count({ where: { key: LOG_VERIFY_LEASE_KEY } })).toBe(1),
    );
    expect(await runLogVerification(prisma, 'manual')).toBeNull();
    release();
    expect(await first).toMatchObject({ ok: true });
    expect(await prisma.appSetting.count({ where: { key: LOG_VERIFY_LEASE_KEY } })).toBe(0);
    expect(await prisma.logVerification.count()).toBe(1);
  });
});
