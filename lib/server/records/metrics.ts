import 'server-only';
import type { PreparedRecord } from './validate-record';

/**
 * In-process counters for /api/metrics. Prometheus counters reset when the
 * process restarts, and `rate()` copes with that; counting from the table
 * instead would go backwards whenever the retention job deletes.
 */

type Counters = {
  ingested: Map<string, number>;
  hostErrors: number;
  hostFailures: number;
  refused: Map<string, number>;
  clientDropped: Map<string, number>;
};

const g = globalThis as typeof globalThis & { __checkpointRecordMetrics?: Counters };
const counters: Counters = g.__checkpointRecordMetrics ?? {
  ingested: new Map(),
  hostErrors: 0,
  hostFailures: 0,
  refused: new Map(),
  clientDropped: new Map(),
};
g.__checkpointRecordMetrics = counters;

export function countIngested(records: PreparedRecord[]): void {
  for (const r of records) {
    const key = `${r.record.interception_point}\u0000${r.record.verdict.decision}`;
    counters.ingested.set(key, (counters.ingested.get(key) ?? 0) + 1);
    if (r.record.verdict.reason?.startsWith('host_error:')) counters.hostErrors++;
    if (r.hostFailure) counters.hostFailures++;
  }
}

/** A refused request, by its error code (records_invalid, record_conflict, …). */
export function countRefused(code: string): void {
  counters.refused.set(code, (counters.refused.get(code) ?? 0) + 1);
}

/** The dropped-records total a host's sink last reported (X-Checkpoint-Dropped). */
export function noteClientDropped(hostName: string, total: number): number {
  const previous = counters.clientDropped.get(hostName) ?? 0;
  if (total > previous) counters.clientDropped.set(hostName, total);
  return previous;
}

export function recordMetricsSnapshot() {
  return {
    ingested: [...counters.ingested.entries()].map(([key, value]) => {
      const [point, decision] = key.split('\u0000');
      return { point, decision, value };
    }),
    hostErrors: counters.hostErrors,
    hostFailures: counters.hostFailures,
    refused: [...counters.refused.entries()].map(([code, value]) => ({ code, value })),
    clientDropped: [...counters.clientDropped.entries()].map(([host, value]) => ({ host, value })),
  };
}
