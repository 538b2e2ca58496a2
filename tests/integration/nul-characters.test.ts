import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as postRecords } from '@/app/api/v1/records/route';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import type { ApiError } from '@/lib/server/http/api-error';
import { ingestRecords } from '@/lib/server/records/ingest';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { makeRecord, noParams, recordsRequest, seedHost } from './records-fixtures';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 10 item 12: a string holding U+0000 is valid JSON and inside the
 * value domain (§4.4), but PostgreSQL text and jsonb cannot hold it. Where
 * the app would store one, the API refuses with a stable code naming the
 * JSON path, stores nothing and never answers 500.
 */

const NUL = '\u0000';

type RecordIssue = { index: number; code: string; message: string; path?: string };
// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, the assertions say what matters
type Answer = { status: number; body: any };

async function postBatch(key: string, body: string, type = 'application/json'): Promise<Answer> {
  const res = await postRecords(recordsRequest(key, body, type), noParams);
  return { status: res.status, body: await res.json() };
}

async function counts() {
  const prisma = await testDb();
  return {
    records: await prisma.interceptionRecord.count(),
    chains: await prisma.sessionChain.count(),
    tickets: await prisma.approvalTicket.count(),
    outbox: await prisma.outboxEvent.count(),
  };
}

beforeAll(async () => {
  const { url, prefix } = testRedis();
  await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
});
beforeEach(truncateAll);
afterAll(async () => {
  await stopApprovalsRuntime();
  await closeTestDb();
});

describe('POST /api/v1/records with U+0000 in a string', () => {
  let host: { id: string; key: string };
  beforeEach(async () => {
    host = await seedHost('nul-records');
  });

  it('a NUL in verdict.reason: 400 records_invalid naming the record and path; nothing stored', async () => {
    const batch = [
      makeRecord('s', 0),
      makeRecord('s', 1, { verdict: { decision: 'deny', reason: `bad${NUL}reason` } }),
      makeRecord('s', 2),
    ];
    const res = await postBatch(host.key, JSON.stringify(batch));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('records_invalid');
    const errors = res.body.error.details.errors as RecordIssue[];
    expect(errors).toEqual([
      expect.objectContaining({ index: 1, code: 'nul_character', path: '$.verdict.reason' }),
    ]);
    expect(errors[0].message).toContain('$.verdict.reason');
    expect(await counts()).toMatchObject({ records: 0, chains: 0 });
  });

  it('a NUL in session_id (NDJSON): refused by position; the same batch without it is stored', async () => {
    // Identities spelled without the session id, so that session_id is the only NUL.
    const ids = { input_identity: 'jcs-sha256:x', enforced_identity: 'jcs-sha256:x' };
    const lines = (sid: string) =>
      [makeRecord('n', 0), makeRecord(sid, 0, ids), makeRecord('n', 1)]
        .map((r) => JSON.stringify(r))
        .join('\n');
    const refused = await postBatch(host.key, lines(`n${NUL}x`), 'application/x-ndjson');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.errors).toEqual([
      expect.objectContaining({ index: 1, code: 'nul_character', path: '$.session_id' }),
    ]);
    expect(await counts()).toMatchObject({ records: 0, chains: 0 });

    const stored = await postBatch(host.key, lines('m'), 'application/x-ndjson');
    expect(stored).toEqual({ status: 200, body: { accepted: 3, duplicates: 0 } });
    expect(await counts()).toMatchObject({ records: 3, chains: 2 });
  });

  it('the in-process ingest refuses the same way (no database error)', async () => {
    const err = (await ingestRecords(host.id, [
      makeRecord('s', 0, { verdict: { decision: 'allow', message: `x${NUL}` } }),
    ]).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('records_invalid');
    expect(err.details).toEqual({
      errors: [
        expect.objectContaining({ index: 0, code: 'nul_character', path: '$.verdict.message' }),
      ],
    });
  });

  it('a NUL in ?agent_id=: 422 nul_character, nothing stored', async () => {
    const url = `http://localhost/api/v1/records?agent_id=${encodeURIComponent(`a${NUL}b`)}`;
    const req = new NextRequest(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.key}`, 'content-type': 'application/json' },
      body: JSON.stringify([makeRecord('s', 0)]),
    });
    const res = await postRecords(req, noParams);
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatchObject({
      code: 'nul_character',
      details: { path: 'agent_id' },
    });
    expect(await counts()).toMatchObject({ records: 0 });
  });
});

describe('POST /api/v1/approvals with U+0000 in a string', () => {
  let host: { id: string; key: string };
  beforeEach(async () => {
    host = await hostWithKey('nul-approvals', { redactionPaths: ['$target.iban'] });
  });

  it('a NUL in a target value: 422 nul_character naming the path, not 500; nothing stored', async () => {
    const res = await post(host.key, approvalRequest(transferContext({ note: `a${NUL}b` })));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('nul_character');
    expect(res.body.error.message).toContain('$.context.tool_call.args.note');
    expect(res.body.error.details).toEqual({ path: '$.context.tool_call.args.note' });
    expect(await counts()).toMatchObject({ tickets: 0, outbox: 0 });
  });

  it('a NUL in a member name is named with a bracketed, escaped key', async () => {
    const res = await post(host.key, approvalRequest(transferContext({ [`a${NUL}b`]: 1 })));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'nul_character',
      details: { path: '$.context.tool_call.args["a\\u0000b"]' },
    });
    expect(res.body.error.message).not.toContain(NUL);
    expect(await counts()).toMatchObject({ tickets: 0 });
  });

  it('a NUL in a label or the verdict message is refused too', async () => {
    const label = await post(
      host.key,
      approvalRequest(transferContext(), { extra: { session: `run${NUL}` } }),
    );
    expect([label.status, label.body.error.details]).toEqual([422, { path: '$.session' }]);
    const request = approvalRequest(transferContext());
    const message = await post(host.key, {
      ...request,
      verdict: { ...request.verdict, message: `over${NUL}` },
    });
    expect([message.status, message.body.error.details]).toEqual([
      422,
      { path: '$.verdict.message' },
    ]);
    expect(await counts()).toMatchObject({ tickets: 0 });
  });

  it('a NUL only under a redaction path is never stored, so the request is taken', async () => {
    const ctx = transferContext({ iban: `DE89${NUL}3704` });
    const res = await post(host.key, approvalRequest(ctx, { redact: ['$target.iban'] }));
    expect(res.status).toBe(201);
    expect(await counts()).toMatchObject({ tickets: 1 });
  });
});
