import 'server-only';
import {
  type BatchingOptions,
  BatchingRecordSink,
  type InterceptionRecord,
  type SendResult,
} from '@checkpoint/agent-hooks';
import { db } from '@/lib/server/db';
import { ensureBuiltInHost } from '@/lib/server/hosts/builtin';
import { AppError } from '@/lib/server/http/api-error';
import { moduleLogger } from '@/lib/server/logger';
import { ingestRecords } from './ingest';

/**
 * The RecordSink of the app's embedded engine: records of in-process
 * emissions go, batched, through the same ingest service as remote ones,
 * under the built-in host. Pushing never blocks or throws; memory is bounded
 * (the same buffer as lib/client's HttpRecordSink: newest dropped when
 * full, database failures retried with backoff, refusals dropped and
 * counted). One sink per agent id, since records carry no agent (§10.3):
 *
 *   createEmbeddedHost({ agent, sinks: [inProcessRecordSink(agent.id).sink] })
 */

const log = moduleLogger('records-sink');
const g = globalThis as typeof globalThis & {
  __checkpointRecordSinks?: Map<string, BatchingRecordSink>;
};
const sinks: Map<string, BatchingRecordSink> = g.__checkpointRecordSinks ?? new Map();
g.__checkpointRecordSinks = sinks;

export function inProcessRecordSink(
  agentId: string,
  options: BatchingOptions = {},
): BatchingRecordSink {
  let sink = sinks.get(agentId);
  if (!sink) {
    sink = new BatchingRecordSink(inProcessTransport(agentId), {
      flushIntervalMs: 500,
      onDrop: (count, reason) => log.warn({ agentId, count, reason }, 'records dropped'),
      ...options,
    });
    sinks.set(agentId, sink);
  }
  return sink;
}

/** Flushes and closes every in-process sink (call at shutdown, before the database closes). */
export async function closeInProcessRecordSinks(timeoutMs = 5_000): Promise<void> {
  const all = [...sinks.values()];
  sinks.clear();
  await Promise.all(all.map((s) => s.close(timeoutMs)));
}

function inProcessTransport(agentId: string) {
  let hostId: string | undefined;
  return async (batch: InterceptionRecord[]): Promise<SendResult> => {
    try {
      hostId ??= (await ensureBuiltInHost(await db())).id;
      const result = await ingestRecords(hostId, batch, { agentId });
      return { ok: true, ...result };
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        const details = err.details as {
          errors?: { index: number }[];
          conflicts?: { index: number }[];
        };
        const indices = (details?.errors ?? details?.conflicts)?.map((e) => e.index);
        log.error({ agentId, code: err.code, details }, 'embedded engine records refused');
        return { ok: false, retry: false, reason: String(err.code), indices };
      }
      return { ok: false, retry: true, error: err instanceof Error ? err.message : String(err) };
    }
  };
}
