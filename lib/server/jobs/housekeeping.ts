import 'server-only';
import { HOUSEKEEPING_ACTION, jobDefinitions } from './definitions';
import { withHandler } from './runnable';
import { scheduleLogVerify } from '../transparency/verify-schedule';
import { scheduleRecordsRetention } from './records-retention';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Sign-in attempts only matter to the rate limiter's recent windows. */
export const SIGN_IN_ATTEMPT_RETENTION_MS = DAY_MS;
/** Dispatched outbox rows are kept a week for inspection, then dropped. */
export const DISPATCHED_OUTBOX_RETENTION_MS = 7 * DAY_MS;

/**
 * Deletes expired plumbing rows, proposes the day's records retention run,
 * and leaves an AuditEvent with the counts.
 */
export const housekeepingJob = withHandler(
  jobDefinitions['housekeeping.run'],
  async (payload, { db, jobId, log }) => {
    const now = Date.now();
    const signIns = await db.signInAttempt.deleteMany({
      where: { createdAt: { lt: new Date(now - SIGN_IN_ATTEMPT_RETENTION_MS) } },
    });
    const outbox = await db.outboxEvent.deleteMany({
      where: { dispatchedAt: { lt: new Date(now - DISPATCHED_OUTBOX_RETENTION_MS) } },
    });
    // Records retention runs once a UTC day; proposing it here (deduplicated
    // per day) keeps a long-running app retaining without a separate timer.
    const retentionProposed = await scheduleRecordsRetention(db);
    // Issue 13: the log verifier's run of this LOG_VERIFY_INTERVAL_MS slot (once per slot).
    const logVerifyProposed = await scheduleLogVerify(db);
    const details = {
      trigger: payload.trigger,
      signInAttemptsDeleted: signIns.count,
      outboxEventsDeleted: outbox.count,
      retentionProposed,
      logVerifyProposed,
    };
    await db.auditEvent.create({
      data: {
        actorKind: 'system',
        action: HOUSEKEEPING_ACTION,
        targetType: 'job',
        targetId: jobId,
        details,
      },
    });
    log.info(details, 'housekeeping done');
  },
);
