import {
  type BatchingOptions,
  BatchingRecordSink,
  type IndexedRefusal,
  type InterceptionRecord,
  type SendResult,
} from '@checkpoint/agent-hooks';

/**
 * A batching RecordSink for TypeScript hosts that send their §10.3 records
 * to Checkpoint's `POST /api/v1/records`:
 *
 *   const records = new HttpRecordSink({ baseUrl, apiKey });
 *   const host = createHost({ …, sinks: [records.sink] });
 *   …
 *   await records.close(); // flushes what is left
 *
 * Retries 408, 429, 5xx and network failures with backoff; a 400/409 drops
 * only the records the server named (counted as `records_invalid` /
 * `record_conflict`; a record holding U+0000 is one of them, code
 * `nul_character`) and sends the rest; other 4xx drop the batch (counted
 * as `http_<status>`). Every record dropped by a refusal goes to
 * `onRefused(record, {reason, code, message, path})`. The drop total goes out as `X-Checkpoint-Dropped` on
 * every request: the server shows it in /api/metrics and in its audit log.
 */

export type HttpRecordSinkOptions = BatchingOptions & {
  baseUrl: string;
  apiKey: string;
  /** Stored with each record as the agent id (records carry none themselves). */
  agentId?: string;
  /** Per request. */
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
};

export class HttpRecordSink extends BatchingRecordSink {
  constructor(options: HttpRecordSinkOptions) {
    super(httpTransport(options), options);
  }
}

export { BatchingRecordSink } from '@checkpoint/agent-hooks';
export type { RecordRefusal, RecordSinkStats, SendResult } from '@checkpoint/agent-hooks';

type ErrorBody = {
  error?: {
    code?: string;
    message?: string;
    details?: { errors?: IndexedRefusal[]; conflicts?: IndexedRefusal[] };
  };
};

function httpTransport(options: HttpRecordSinkOptions) {
  const url = new URL('/api/v1/records', options.baseUrl);
  if (options.agentId) url.searchParams.set('agent_id', options.agentId);
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  return async (batch: InterceptionRecord[], droppedTotal: number): Promise<SendResult> => {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          'content-type': 'application/x-ndjson',
          'x-checkpoint-dropped': String(droppedTotal),
        },
        body: `${batch.map((r) => JSON.stringify(r)).join('\n')}\n`,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      return { ok: false, retry: true, error: `network: ${(err as Error)?.name ?? 'error'}` };
    }
    if (res.ok) {
      const body = (await res.json().catch(() => ({}))) as {
        accepted?: number;
        duplicates?: number;
      };
      return {
        ok: true,
        accepted: body.accepted ?? batch.length,
        duplicates: body.duplicates ?? 0,
      };
    }
    if (res.status >= 500 || res.status === 408 || res.status === 429) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, retry: true, error: `http_${res.status}` };
    }
    const body = (await res.json().catch(() => ({}))) as ErrorBody;
    const { code, message } = body.error ?? {};
    // A refusal by position (a record the store cannot hold, e.g. U+0000 →
    // nul_character) drops exactly those records; the rest go out again.
    const details =
      res.status === 400 && code === 'records_invalid'
        ? body.error?.details?.errors
        : res.status === 409 && code === 'record_conflict'
          ? body.error?.details?.conflicts
          : undefined;
    if (details) {
      const indices = details.map((e) => e.index);
      return { ok: false, retry: false, reason: code as string, indices, details, message };
    }
    return { ok: false, retry: false, reason: `http_${res.status}`, message };
  };
}
