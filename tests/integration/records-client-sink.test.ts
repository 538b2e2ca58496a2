import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST } from '@/app/api/v1/records/route';
import { HttpRecordSink } from '@checkpoint/client';
import { createHost, type InterceptionRecord, Verdict } from '@checkpoint/agent-hooks';
import { verifySessionChain } from '@/lib/server/records/verify';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, seedHost } from './records-fixtures';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * The client sink over real HTTP against the real route handler, host auth
 * and database: a plain node server hands each request to POST.
 */
let server: Server;
let baseUrl: string;
let outage = 0;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (outage > 0) {
      outage--;
      res.writeHead(503).end('{"error":{"code":"unavailable","message":"down"}}');
      return;
    }
    const request = new NextRequest(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    const answer = await POST(request, { params: Promise.resolve({}) });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await closeTestDb();
});

let host: { id: string; key: string };
beforeEach(async () => {
  await truncateAll();
  outage = 0;
  host = await seedHost('client-host');
});

describe('HttpRecordSink → POST /api/v1/records', () => {
  it('delivers an engine session through size, interval and close flushes; the chain verifies', async () => {
    const sink = new HttpRecordSink({
      baseUrl,
      apiKey: host.key,
      agentId: 'demo-bot',
      maxBatch: 4,
      flushIntervalMs: 50,
    });
    const engine = createHost({
      agent: { id: 'demo-bot', framework: 'test' },
      interceptors: [() => Verdict.allow()],
      sinks: [sink.sink],
    });
    const session = engine.session({ id: 'sess-http' });
    await session.start({ tools_registered: [] });
    for (let i = 0; i < 8; i++) await session.input(`turn ${i}`);
    await new Promise((r) => setTimeout(r, 300)); // size flushes (2×4) and the interval
    await session.shutdown();
    const stats = await sink.close();
    expect(stats).toMatchObject({ sent: 10, dropped: 0, buffered: 0 });
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => r.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(rows.map((r) => r.agentId))).toEqual(new Set(['demo-bot']));
    expect(await verifySessionChain(host.id, 'sess-http')).toMatchObject({ ok: true, checked: 10 });
  });

  it('rides out an outage with retries, and a resend after a lost answer is a duplicate', async () => {
    outage = 2;
    const sink = new HttpRecordSink({ baseUrl, apiKey: host.key, backoffMs: 20 });
    for (const i of [0, 1, 2]) sink.push(makeRecord('s', i) as unknown as InterceptionRecord);
    expect(await sink.flush()).toBe(true);
    expect(sink.stats()).toMatchObject({ sent: 3, retries: 2 });
    for (const i of [2, 3]) sink.push(makeRecord('s', i) as unknown as InterceptionRecord);
    await sink.close();
    expect(sink.stats()).toMatchObject({ sent: 4, duplicates: 1, dropped: 0 });
  });

  it('drops only a refused record; its drop total reaches the server as an audit event', async () => {
    const sink = new HttpRecordSink({ baseUrl, apiKey: host.key });
    sink.push(makeRecord('d', 0) as unknown as InterceptionRecord);
    sink.push(makeRecord('d', 1, { payload: 'nope' }) as unknown as InterceptionRecord);
    sink.push(makeRecord('d', 2) as unknown as InterceptionRecord);
    await sink.flush();
    expect(sink.stats()).toMatchObject({ sent: 2, droppedByReason: { records_invalid: 1 } });
    sink.push(makeRecord('d', 3) as unknown as InterceptionRecord);
    await sink.close();
    const prisma = await testDb();
    expect(await prisma.interceptionRecord.count()).toBe(3);
    const events = await prisma.auditEvent.findMany({
      where: { action: 'records.client_dropped' },
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ targetId: host.id, details: { droppedTotal: 1 } });
  });

  it('drops exactly a record the store cannot hold (U+0000) and reports it; the records after it arrive', async () => {
    const refused: { record: InterceptionRecord; code: string; path?: string }[] = [];
    const sink = new HttpRecordSink({
      baseUrl,
      apiKey: host.key,
      onRefused: (record, refusal) => refused.push({ record, ...refusal }),
    });
    const poisoned = makeRecord('z', 1, {
      verdict: { decision: 'deny', reason: 'x', message: 'a\u0000b' },
    }) as unknown as InterceptionRecord;
    sink.push(makeRecord('z', 0) as unknown as InterceptionRecord);
    sink.push(poisoned);
    sink.push(makeRecord('z', 2) as unknown as InterceptionRecord);
    // Before issue 10 the store answered 500 and the sink retried this batch forever.
    expect(await sink.flush(5_000)).toBe(true);
    sink.push(makeRecord('z', 3) as unknown as InterceptionRecord);
    const stats = await sink.close();
    expect(stats).toMatchObject({ sent: 3, dropped: 1, droppedByReason: { records_invalid: 1 } });
    expect(refused).toEqual([
      expect.objectContaining({
        record: poisoned,
        code: 'nul_character',
        path: '$.verdict.message',
      }),
    ]);
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({ orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => r.sequence)).toEqual([0, 2, 3]);
  });
});
