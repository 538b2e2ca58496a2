import { describe, expect, it } from 'vitest';
import { HttpRecordSink, type RecordRefusal } from '@checkpoint/client';
import type { InterceptionRecord } from '@checkpoint/agent-hooks';

/**
 * Issue 10 item 12: a refusal is final for the records it names. Each one
 * goes to `onRefused` with the server's code and path, is dropped, and never
 * holds back the records after it.
 */

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

/** A fetch answering `replies` in turn (then 200s); records the sequences of each batch. */
type OnRefused = (record: InterceptionRecord, refusal: RecordRefusal) => void;

function sinkWith(replies: (() => Response)[], onRefused: OnRefused) {
  const batches: number[][] = [];
  const fetch = (async (_url: URL, init: RequestInit) => {
    const seqs = String(init.body)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).sequence as number);
    batches.push(seqs);
    const reply = replies[batches.length - 1];
    return reply ? reply() : Response.json({ accepted: seqs.length, duplicates: 0 });
  }) as unknown as typeof globalThis.fetch;
  const sink = new HttpRecordSink({
    baseUrl: 'http://checkpoint.test',
    apiKey: 'ck_key',
    flushIntervalMs: 60_000,
    fetch,
    onRefused,
  });
  return { sink, batches };
}

const nulRefusal = () =>
  Response.json(
    {
      error: {
        code: 'records_invalid',
        message: '1 of 3 records were refused; nothing was stored.',
        details: {
          errors: [
            {
              index: 1,
              code: 'nul_character',
              message: '$.verdict.reason contains U+0000',
              path: '$.verdict.reason',
            },
          ],
        },
      },
    },
    { status: 400 },
  );

describe('HttpRecordSink refusals', () => {
  it('reports exactly the refused record with its code and path, and resends the rest', async () => {
    const refused: [number, RecordRefusal][] = [];
    const { sink, batches } = sinkWith([nulRefusal], (r, x) => {
      refused.push([r.sequence, x]);
    });
    for (const i of [0, 1, 2]) sink.push(record(i));
    expect(await sink.flush(1_000)).toBe(true);
    expect(batches).toEqual([
      [0, 1, 2],
      [0, 2],
    ]);
    expect(refused).toEqual([
      [
        1,
        {
          reason: 'records_invalid',
          code: 'nul_character',
          message: '$.verdict.reason contains U+0000',
          path: '$.verdict.reason',
        },
      ],
    ]);
    await sink.close(0);
  });

  it('a refusal of the whole batch reports each record with the server message', async () => {
    const refused: RecordRefusal[] = [];
    const { sink } = sinkWith(
      [() => Response.json({ error: { code: 'forbidden', message: 'no' } }, { status: 403 })],
      (_r, x) => {
        refused.push(x);
      },
    );
    sink.push(record(0));
    sink.push(record(1));
    await sink.flush(1_000);
    expect(refused).toEqual([
      { reason: 'http_403', code: 'http_403', message: 'no' },
      { reason: 'http_403', code: 'http_403', message: 'no' },
    ]);
    await sink.close(0);
  });

  it('an observer that throws changes nothing', async () => {
    const { sink, batches } = sinkWith([nulRefusal], () => {
      throw new Error('observer bug');
    });
    for (const i of [0, 1, 2]) sink.push(record(i));
    expect(await sink.flush(1_000)).toBe(true);
    expect(batches.at(-1)).toEqual([0, 2]);
    expect(sink.stats()).toMatchObject({ sent: 2, droppedByReason: { records_invalid: 1 } });
    await sink.close(0);
  });
});
