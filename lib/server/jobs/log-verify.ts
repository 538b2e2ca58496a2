import 'server-only';
import { config } from '../config';
import { runLogVerification } from '../transparency/verify-run';
import { scheduleLogVerify } from '../transparency/verify-schedule';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Verifies the whole transparency log (transparency/verifier.ts) and stores
 * the result; a run that finds another one in progress does nothing. A
 * scheduled run proposes the next slot's (transparency/verify-schedule.ts).
 */
export const logVerifyJob = withHandler(
  jobDefinitions['log.verify'],
  async (payload, { db, log }) => {
    const stored = await runLogVerification(db, payload.trigger);
    if (!stored) {
      log.info({ trigger: payload.trigger }, 'log verification already running, skipped');
    } else if (stored.ok) {
      log.info({ size: stored.size, findings: stored.findingCount }, 'transparency log verified');
    } else {
      log.error(
        { size: stored.size, failures: stored.failureCount, first: stored.firstFailure?.detail },
        'transparency log verification FAILED',
      );
    }
    if (payload.trigger === 'schedule') {
      const interval = config().LOG_VERIFY_INTERVAL_MS;
      if (interval > 0) await scheduleLogVerify(db, Date.now() + interval);
    }
  },
);
