import 'server-only';
import { closeTicketEvents, ensureSubscriber } from './events';
import { type ExpiryScheduler, startExpiryScheduler } from './expiry-scheduler';

const g = globalThis as unknown as { __checkpointExpiryScheduler?: ExpiryScheduler };

/**
 * Starts, once per process, what approvals need in the background: the
 * ticket-event subscriber and the expiry scheduler. Called at boot (app and
 * worker) and by every approvals entry point. The scheduler needs only the
 * database, so tickets expire while Redis is down.
 */
export function ensureApprovalsRuntime(): void {
  ensureSubscriber();
  g.__checkpointExpiryScheduler ??= startExpiryScheduler();
}

export async function stopApprovalsRuntime(): Promise<void> {
  const scheduler = g.__checkpointExpiryScheduler;
  g.__checkpointExpiryScheduler = undefined;
  await scheduler?.stop();
  await closeTicketEvents();
}
