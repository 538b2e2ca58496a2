import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST } from '@/app/api/v1/records/route';
import { createHost, Verdict } from '@checkpoint/agent-hooks';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import {
  hostFailureRecord,
  makeRecord,
  noParams,
  recordsRequest,
  seedHost,
} from './records-fixtures';

/** POST /api/v1/records through the real route handler and host auth. */
async function post(key: string | null, body: unknown, contentType = 'application/json') {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await POST(recordsRequest(key, text, contentType), noParams);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function storedCount() {
  const prisma = await testDb();
  return prisma.interceptionRecord.count();
}

// Host routes never read the session; Auth.js only loads inside Next.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

let host: { id: string; key: string };

beforeEach(async () => {
  await truncateAll();
  host = await seedHost('remote-1');
});
afterAll(closeTestDb);

describe('POST /api/v1/records accepts (§10.3)', () => {
  it('stores a JSON array, indexes the columns and keeps the record whole', async () => {
    const records = [0, 1, 2].map((i) => makeRecord('s-1', i));
    records[1] = makeRecord('s-1', 1, {
      verdict: { decision: 'deny', reason: 'host_error:interceptor_failed', approval: {} },
      resolved_by: 'rejection',
      fold_truncated: true,
      decided_by: 0,
    });
    const res = await post(host.key, records);
    expect(res).toEqual({ status: 200, json: { accepted: 3, duplicates: 0 } });
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => r.sequence)).toEqual([0, 1, 2]);
    expect(rows[1]).toMatchObject({
      hostId: host.id,
      sessionId: 's-1',
      decision: 'deny',
      reason: 'host_error:interceptor_failed',
      hostError: true,
      resolvedBy: 'rejection',
      foldTruncated: true,
      decidedBy: 0,
      interceptionPoint: 'pre_tool_call',
      hostFailure: false,
    });
    expect(rows[1].record).toEqual(records[1]);
    expect(rows[0].timestamp?.toISOString()).toBe('2026-12-02T10:00:00.000Z');
    const chain = await prisma.sessionChain.findUniqueOrThrow({
      where: { hostId_sessionId: { hostId: host.id, sessionId: 's-1' } },
    });
    expect(chain).toMatchObject({ lastSequence: 2, recordCount: 3, headHash: rows[2].chainHash });
  });

  it('takes NDJSON', async () => {
    const body = `${[0, 1].map((i) => JSON.stringify(makeRecord('s-n', i))).join('\n')}\n`;
    const res = await post(host.key, body, 'application/x-ndjson');
    expect(res).toEqual({ status: 200, json: { accepted: 2, duplicates: 0 } });
  });

  it('takes what the engine itself emits (lib/hooks sinks)', async () => {
    const emitted: InterceptionRecord[] = [];
    const engine = createHost({
      agent: { id: 'bot', framework: 'test' },
      interceptors: [() => Verdict.allow()],
      sinks: [(r) => void emitted.push(r)],
    });
    const session = engine.session({ id: 'engine-session' });
    await session.start({ tools_registered: [] });
    await session.input('hello');
    await session.shutdown();
    await new Promise((r) => setTimeout(r, 10));
    expect(emitted.length).toBe(3);
    const res = await post(host.key, emitted);
    expect(res).toEqual({ status: 200, json: { accepted: 3, duplicates: 0 } });
  });

  it('accepts host-failure records, flags them, keeps them out of chains, dedupes by content', async () => {
    const a = hostFailureRecord('adapter crashed');
    const b = hostFailureRecord('disk full');
    expect((await post(host.key, [a, b])).json).toEqual({ accepted: 2, duplicates: 0 });
    expect((await post(host.key, [a])).json).toEqual({ accepted: 0, duplicates: 1 });
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ where: { hostFailure: true } });
    expect(rows.map((r) => [r.sessionId, r.sequence, r.prevHash])).toEqual([
      ['', -1, null],
      ['', -1, null],
    ]);
    expect(await prisma.sessionChain.count()).toBe(0);
  });

  it('answers 401 without an API key and stores nothing', async () => {
    const res = await post(null, [makeRecord('s', 0)]);
    expect(res.status).toBe(401);
    expect(await storedCount()).toBe(0);
  });
});
