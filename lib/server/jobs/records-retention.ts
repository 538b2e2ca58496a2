import 'server-only';
import { z } from 'zod';
import { retentionDedupeKey, runRecordsRetention } from '../records/retention';
import { defineJob } from './define-job';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes InterceptionRecords past the retention age (records/retention.ts)
 * and proposes tomorrow's run through the outbox, so one call of
 * `scheduleRecordsRetention()` keeps it going; the daily dedupeKey makes
 * every extra proposal a no-op.
 */
export const recordsRetentionJob = defineJob({
  name: 'records.retention',
  schema: z.object({ trigger: z.enum(['schedule', 'manual']) }).strict(),
  attempts: 3,
  backoffMs: 60_000,
  async handler(payload, { db, jobId, log }) {
    const outcome = await runRecordsRetention(db, { trigger: payload.trigger, jobId });
    log.info(outcome, 'records retention done');
    if (payload.trigger === 'schedule') {
      await scheduleRecordsRetention(db, new Date(Date.now() + DAY_MS));
    }
  },
});

/** Proposes the retention run of `at`'s day (idempotent per day). */
export async function scheduleRecordsRetention(
  db: Parameters<typeof runRecordsRetention>[0],
  at = new Date(),
): Promise<boolean> {
  // Imported here: the outbox imports the registry, which imports this file.
  const { enqueue } = await import('../queue/outbox');
  return enqueue(db, {
    kind: 'records.retention',
    payload: { trigger: 'schedule' },
    dedupeKey: retentionDedupeKey(at),
    availableAt: at,
  });
}
