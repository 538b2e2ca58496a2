import 'server-only';
import { notifyWitness } from '../transparency/witnesses';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/** POSTs one signed tree head to one witness; a failure throws, so BullMQ retries it. */
export const witnessNotifyJob = withHandler(
  jobDefinitions['witness.notify'],
  async (payload, { db, log }) => {
    const outcome = await notifyWitness(db, payload.witnessId, payload.size);
    log.debug({ ...payload, outcome }, 'witness notified');
  },
);
