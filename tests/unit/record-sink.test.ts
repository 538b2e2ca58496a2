import { afterEach, describe, expect, it } from 'vitest';
import { HttpRecordSink } from '@checkpoint/client';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';

/**
 * HttpRecordSink against a scripted fetch: what it sends, when, and what it
 * does when the server fails. (records-client-sink.test.ts runs it against
 * the real route and database.)
 */

type Call = { at: number; records: InterceptionRecord[]; headers: Headers; url: string };
type Reply = () => Response | Promise<Response>;

function record(sequence: number): InterceptionRecord {
  return {
    interception_point: 'input',
    mode: 'enforce',
    verdict: { decision: 'allow' },
    input_identity: null,
    enforced_identity: null,
    identity_provider: null,
    session_id: 's',
    sequence,
    decided_by: null,
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    interceptors_registered: 1,
  };
}

const ok = (n: number) => Response.json({ accepted: n, duplicates: 0 });

/** A fetch that answers from `script` in turn (the last entry repeats) and logs each call. */
function scripted(script: Reply[]) {
  const calls: Call[] = [];
  const fetch = (async (url: URL, init: RequestInit) => {
    const records = String(init.body)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    calls.push({ at: Date.now(), records, headers: new Headers(init.headers), url: String(url) });
    const reply = script[Math.min(calls.length - 1, script.length - 1)];
    return reply ? reply() : ok(records.length);
  }) as unknown as typeof globalThis.fetch;
  return { calls, fetch };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sinks: HttpRecordSink[] = [];
function make(
  opts: Partial<ConstructorParameters<typeof HttpRecordSink>[0]>,
  script: Reply[] = [],
) {
  const s = scripted(script);
  const sink = new HttpRecordSink({
    baseUrl: 'http://checkpoint.test',
    apiKey: 'ck_key',
    flushIntervalMs: 60_000,
    fetch: s.fetch,
    ...opts,
  });
  sinks.push(sink);
  return { sink, calls: s.calls };
}
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((s) => s.close(0)));
});

describe('HttpRecordSink', () => {
  it('flushes when a batch is full, as NDJSON with the API key and agent id', async () => {
    const { sink, calls } = make({ maxBatch: 3, agentId: 'bot-7' });
    for (const i of [0, 1, 2, 3]) sink.push(record(i));
    await wait(20);
    expect(calls).toHaveLength(1);
    expect(calls[0].records.map((r) => r.sequence)).toEqual([0, 1, 2]);
    expect(calls[0].url).toBe('http://checkpoint.test/api/v1/records?agent_id=bot-7');
    expect(calls[0].headers.get('authorization')).toBe('Bearer ck_key');
    expect(calls[0].headers.get('content-type')).toBe('application/x-ndjson');
    expect(sink.stats()).toMatchObject({ buffered: 1, sent: 3 });
  });

  it('flushes a partial batch on the interval', async () => {
    const { sink, calls } = make({ flushIntervalMs: 30 });
    sink.push(record(0));
    expect(calls).toHaveLength(0);
    await wait(120);
    expect(calls.map((c) => c.records.length)).toEqual([1]);
  });

  it('flushes what is left at close', async () => {
    const { sink, calls } = make({ maxBatch: 100 });
    for (const i of [0, 1, 2]) sink.push(record(i));
    const stats = await sink.close();
    expect(calls.map((c) => c.records.length)).toEqual([3]);
    expect(stats).toMatchObject({ buffered: 0, sent: 3, dropped: 0 });
    sink.push(record(3));
    expect(sink.stats().droppedByReason).toEqual({ closed: 1 });
  });

  it('retries 5xx and network errors with exponential backoff, in order, then delivers', async () => {
    const down = () => new Response('{}', { status: 503 });
    const { sink, calls } = make({ backoffMs: 40, random: () => 1 }, [
      down,
      () => Promise.reject(new TypeError('fetch failed')),
      down,
      () => ok(2),
    ]);
    sink.push(record(0));
    sink.push(record(1));
    expect(await sink.flush()).toBe(true);
    expect(calls).toHaveLength(4);
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i].at);
    // 40, 80, 160 ms (random() = 1 takes the whole capped delay).
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
    expect(calls.every((c) => c.records.map((r) => r.sequence).join() === '0,1')).toBe(true);
    expect(sink.stats()).toMatchObject({ sent: 2, retries: 3, dropped: 0 });
  });

  it('keeps memory bounded: past maxBuffered the newest records are dropped and counted', async () => {
    const { sink } = make({ maxBuffered: 5, backoffMs: 10_000 }, [
      () => new Response('{}', { status: 503 }),
    ]);
    for (let i = 0; i < 8; i++) sink.push(record(i));
    expect(sink.stats()).toMatchObject({
      buffered: 5,
      dropped: 3,
      droppedByReason: { buffer_full: 3 },
    });
  });

  it('drops only the records a 400 names, sends the rest, and reports the drop total', async () => {
    const { sink, calls } = make({}, [
      () =>
        Response.json(
          {
            error: {
              code: 'records_invalid',
              message: 'x',
              details: { errors: [{ index: 1, code: 'field_unknown', message: 'x' }] },
            },
          },
          { status: 400 },
        ),
      () => ok(2),
    ]);
    for (const i of [0, 1, 2]) sink.push(record(i));
    await sink.flush();
    expect(calls.map((c) => c.records.map((r) => r.sequence))).toEqual([
      [0, 1, 2],
      [0, 2],
    ]);
    expect(calls.map((c) => c.headers.get('x-checkpoint-dropped'))).toEqual(['0', '1']);
    expect(sink.stats()).toMatchObject({
      sent: 2,
      dropped: 1,
      droppedByReason: { records_invalid: 1 },
    });
  });

  it('drops conflicting records named by a 409 and does not retry them', async () => {
    const { sink, calls } = make({}, [
      () =>
        Response.json(
          {
            error: {
              code: 'record_conflict',
              message: 'x',
              details: { conflicts: [{ index: 0, session_id: 's', sequence: 0 }] },
            },
          },
          { status: 409 },
        ),
      () => ok(1),
    ]);
    sink.push(record(0));
    sink.push(record(1));
    await sink.flush();
    expect(calls).toHaveLength(2);
    expect(sink.stats().droppedByReason).toEqual({ record_conflict: 1 });
  });

  it('drops a batch refused for another reason (401) without retrying', async () => {
    const { sink, calls } = make({}, [() => new Response('{}', { status: 401 })]);
    sink.push(record(0));
    await sink.flush();
    expect(calls).toHaveLength(1);
    expect(sink.stats().droppedByReason).toEqual({ http_401: 1 });
  });

  it('push never throws, even for a record that cannot be serialized', () => {
    const { sink } = make({});
    const bad = { ...record(0), evidence: 1n } as unknown as InterceptionRecord;
    expect(() => sink.push(bad)).not.toThrow();
    expect(sink.stats().droppedByReason).toEqual({ unserializable: 1 });
  });

  it('close gives up after its timeout while the server is down, counting the rest as shutdown', async () => {
    const { sink } = make({ backoffMs: 50 }, [() => new Response('{}', { status: 500 })]);
    for (const i of [0, 1, 2]) sink.push(record(i));
    const started = Date.now();
    const stats = await sink.close(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(stats).toMatchObject({ buffered: 0, dropped: 3, droppedByReason: { shutdown: 3 } });
  });

  it('splits batches by size in bytes as well as by count', async () => {
    const big = (i: number) => ({
      ...record(i),
      verdict: { decision: 'allow' as const, reason: 'r'.repeat(600) },
    });
    const lineBytes = JSON.stringify(big(0)).length + 1;
    const { sink, calls } = make({ maxBatch: 100, maxBatchBytes: 2 * lineBytes + 10 });
    for (const i of [0, 1, 2, 3]) sink.push(big(i));
    await sink.flush();
    expect(calls.map((c) => c.records.length)).toEqual([2, 2]);
  });
});
