import { mkdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { checkSessionIntegrity } from '@/lib/server/audit/integrity';
import { closeDb, db, dbInfo } from '@/lib/server/db';
import { generateApiKey } from '@/lib/server/hosts/api-key';
import { ingestRecords } from '@/lib/server/records/ingest';
import { forgetActiveSigningKey } from '@/lib/server/signing/jws';
import { appendAll } from '@/lib/server/transparency/append';
import { issueTreeHead } from '@/lib/server/transparency/tree-head';
import { verifyLog } from '@/lib/server/transparency/verifier';
import { approvalRequest, post, transferContext } from './approvals-fixtures';
import { makeRecord } from './records-fixtures';

/**
 * The transparency log on the embedded database (the default install), which
 * has ONE connection: anything the appender reads while its transaction is
 * open must be read through that transaction, or the read waits for the
 * transaction and the transaction for the read until it times out (60 s),
 * blocking every request meanwhile. Decisions are where that bit: their
 * receipts are checked against the published keys inside the append.
 */

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

// Before any import: modules that log read the configuration when loaded.
const env = vi.hoisted(() => {
  const saved = {
    DATABASE_URL: process.env.DATABASE_URL,
    DATA_DIR: process.env.DATA_DIR,
    TREE_HEAD_FILE: process.env.TREE_HEAD_FILE,
  };
  const dataDir = `${process.env.TEST_RUN_DIR}/log-pglite-${process.pid}`;
  delete process.env.DATABASE_URL;
  process.env.DATA_DIR = dataDir;
  process.env.TREE_HEAD_FILE = `${dataDir}/tree-heads.jsonl`;
  return { saved, dataDir };
});

beforeAll(async () => {
  mkdirSync(env.dataDir, { recursive: true, mode: 0o700 });
  await closeDb();
  forgetActiveSigningKey();
});
afterAll(async () => {
  await stopApprovalsRuntime();
  await closeDb();
  for (const [k, v] of Object.entries(env.saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  forgetActiveSigningKey();
  rmSync(env.dataDir, { recursive: true, force: true });
});

describe('the transparency log on the embedded PGlite database', () => {
  it('appends records and a signed decision, signs a head, and both verifiers pass', async () => {
    expect(dbInfo().kind).toBe('pglite');
    const prisma = await db();
    const host = await prisma.host.create({ data: { name: 'pglite-log' }, select: { id: true } });
    const k = generateApiKey();
    await prisma.apiKey.create({
      data: { hostId: host.id, name: 'test', prefix: k.prefix, hash: k.hash },
    });
    const reviewer = await prisma.user.create({
      data: { email: 'rita@example.com', roles: ['reviewer'] },
      select: { id: true },
    });

    await ingestRecords(
      host.id,
      [0, 1, 2].map((i) => makeRecord('s-1', i)),
    );
    const body = approvalRequest(transferContext({ iban: 'X' }));
    const created = await post(k.key, body);
    expect(created.status).toBe(201);
    await decideTicket({
      ticketId: created.body.id as string,
      actor: { kind: 'human', userId: reviewer.id, auth: 'password' },
      outcome: 'approve',
      contextIdentity: body.context_identity as string,
    });

    // A deadlocked append throws when its 60 s transaction expires.
    const appended = await appendAll(prisma);
    // Three records and one decision; none refused.
    expect(appended).toMatchObject({ appended: 4, size: 4 });
    const head = await issueTreeHead(prisma);
    expect(head?.size).toBe(4);

    const log = await verifyLog(prisma);
    expect(log.findings.filter((f) => f.problem !== 'not_logged')).toEqual([]);
    expect(log.ok).toBe(true);
    const session = await checkSessionIntegrity(host.id, 's-1');
    expect(session.findings).toEqual([]);
    expect(session.ok).toBe(true);
  }, 90_000);
});
