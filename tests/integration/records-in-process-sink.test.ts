import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createHost, Verdict } from '@checkpoint/agent-hooks';
import {
  closeInProcessRecordSinks,
  inProcessRecordSink,
} from '@/lib/server/records/in-process-sink';
import { verifySessionChain } from '@/lib/server/records/verify';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

beforeEach(truncateAll);
afterAll(async () => {
  await closeInProcessRecordSinks();
  await closeTestDb();
});

describe('in-process sink of the embedded engine', () => {
  it('stores the engine records under the built-in host and agent, chained', async () => {
    const sink = inProcessRecordSink('embedded-bot', { flushIntervalMs: 30 });
    const engine = createHost({
      agent: { id: 'embedded-bot', framework: 'checkpoint' },
      interceptors: [
        (ctx) => (ctx.interception_point === 'input' ? Verdict.deny('no_input') : Verdict.allow()),
      ],
      sinks: [sink.sink],
    });
    const session = engine.session({ id: 'in-proc' });
    await session.start({ tools_registered: [] });
    const input = await session.input('hello');
    expect(input.proceed).toBe(false);
    await session.shutdown();
    expect(await sink.flush(5_000)).toBe(true);
    const prisma = await testDb();
    const rows = await prisma.interceptionRecord.findMany({
      orderBy: { sequence: 'asc' },
      include: { host: { select: { builtIn: true } } },
    });
    expect(rows.map((r) => [r.sequence, r.decision, r.reason])).toEqual([
      [0, 'allow', null],
      [1, 'deny', 'no_input'],
      [2, 'allow', null],
    ]);
    expect(rows.every((r) => r.host.builtIn && r.agentId === 'embedded-bot')).toBe(true);
    expect(await verifySessionChain(rows[0].hostId, 'in-proc')).toMatchObject({
      ok: true,
      checked: 3,
    });
  });

  it('is one sink per agent and never throws on push', () => {
    const a = inProcessRecordSink('agent-a');
    expect(inProcessRecordSink('agent-a')).toBe(a);
    expect(inProcessRecordSink('agent-b')).not.toBe(a);
    expect(() => a.push(null as never)).not.toThrow();
  });
});
