import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { enqueue } from '../queue/outbox';
import { runRecordsRetention } from '../records/retention';
import { jobDefinitions, recordsRetentionDedupeKey } from './definitions';
import { withHandler } from './runnable';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes InterceptionRecords past the retention age (records/retention.ts)
 * and proposes tomorrow's run through the outbox, so one call of
 * `scheduleRecordsRetention()` keeps it going; the daily dedupeKey makes
 * every extra proposal a no-op.
 */
export const recordsRetentionJob = withHandler(
  jobDefinitions['records.retention'],
  async (payload, { db, jobId, log }) => {
    const outcome = await runRecordsRetention(db, { trigger: payload.trigger, jobId });
    log.info(outcome, 'records retention done');
    if (payload.trigger === 'schedule') {
      await scheduleRecordsRetention(db, new Date(Date.now() + DAY_MS));
    }
  },
);

/** Proposes the retention run of `at`'s day (idempotent per day). */
export async function scheduleRecordsRetention(
  db: PrismaClient,
  at = new Date(),
): Promise<boolean> {
  return enqueue(db, {
    kind: 'records.retention',
    payload: { trigger: 'schedule' },
    dedupeKey: recordsRetentionDedupeKey(at),
    availableAt: at,
  });
}
