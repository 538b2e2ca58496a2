import 'server-only';
import { checkpointMetrics } from './registry';

/** What ingest counts of a stored record (a `PreparedRecord` has these members). */
export interface CountedRecord {
  record: {
    interception_point: string;
    verdict: { decision: string; reason?: string | null };
  };
  hostFailure: boolean;
}

/** Records just stored, by point and decision; host errors and host failures besides. */
export function countIngested(records: readonly CountedRecord[]): void {
  const m = checkpointMetrics();
  for (const r of records) {
    m.recordsIngested.inc({
      point: r.record.interception_point,
      decision: r.record.verdict.decision,
    });
    if (r.record.verdict.reason?.startsWith('host_error:')) m.recordsHostError.inc();
    if (r.hostFailure) m.recordsHostFailure.inc();
  }
}

/** A refused request, by its error code (records_invalid, record_conflict, …). */
export function countRefused(code: string): void {
  checkpointMetrics().recordsRefused.inc({ code });
}

/**
 * The dropped-records total a host's sink reported (X-Checkpoint-Dropped).
 * Returns the total known before, so the caller audits only an increase.
 */
export function noteClientDropped(hostName: string, total: number): number {
  const m = checkpointMetrics();
  const previous = m.clientDroppedTotals.get(hostName) ?? 0;
  if (total > previous) {
    m.clientDroppedTotals.set(hostName, total);
    m.clientDropped.set({ host: hostName }, total);
  }
  return previous;
}
