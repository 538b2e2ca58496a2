import 'server-only';
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';
import { jobDefinitions } from '@/lib/server/jobs/definitions';
import { enqueue } from '@/lib/server/queue/outbox';

/**
 * Producers of the `log.verify` job (its handler is jobs/log-verify.ts):
 * one scheduled run per LOG_VERIFY_INTERVAL_MS slot, proposed by
 * housekeeping and by the run before (the slot in the key makes every
 * extra proposal a no-op), and an admin's "Verify now".
 */

const logVerifyKey = jobDefinitions['log.verify'].dedupeKey;

/** Proposes the scheduled run of the slot `at` falls in; false when off or already proposed. */
export async function scheduleLogVerify(db: PrismaClient, at = Date.now()): Promise<boolean> {
  const interval = config().LOG_VERIFY_INTERVAL_MS;
  if (interval <= 0) return false;
  const slot = Math.floor(at / interval);
  return enqueue(db, {
    kind: 'log.verify',
    payload: { trigger: 'schedule' },
    dedupeKey: logVerifyKey(`schedule.${slot}`),
    availableAt: new Date(Math.max(Date.now(), slot * interval)),
  });
}

/** An admin's "Verify now": queued at once (the maintenance lane runs it). */
export async function requestLogVerify(db: PrismaClient): Promise<string> {
  const requestId = randomUUID();
  await enqueue(db, {
    kind: 'log.verify',
    payload: { trigger: 'manual', requestId },
    dedupeKey: logVerifyKey(`manual.${requestId}`),
  });
  return requestId;
}
