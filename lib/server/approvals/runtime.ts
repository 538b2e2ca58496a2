import 'server-only';
import { moduleLogger } from '../logger';
import { closeTicketEvents, ensureSubscriber } from './events';
import { expireDueTickets } from './expire';

/** How often each instance sweeps for tickets past their deadline. */
export const SWEEP_INTERVAL_MS = 5_000;

const log = moduleLogger('approvals-runtime');
const g = globalThis as unknown as { __checkpointApprovalSweep?: NodeJS.Timeout };

/**
 * Starts, once per process, what approvals need in the background: the
 * ticket-event subscriber and the expiry sweep. Called by every approvals
 * entry point, so an instance that serves approvals always sweeps; the
 * sweep needs only the database (expiry happens while Redis is down).
 */
export function ensureApprovalsRuntime(): void {
  ensureSubscriber();
  if (g.__checkpointApprovalSweep) return;
  let running = false;
  g.__checkpointApprovalSweep = setInterval(() => {
    if (running) return;
    running = true;
    expireDueTickets()
      .catch((err) => {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'expiry sweep failed');
      })
      .finally(() => {
        running = false;
      });
  }, SWEEP_INTERVAL_MS);
  g.__checkpointApprovalSweep.unref();
}

export async function stopApprovalsRuntime(): Promise<void> {
  if (g.__checkpointApprovalSweep) clearInterval(g.__checkpointApprovalSweep);
  g.__checkpointApprovalSweep = undefined;
  await closeTicketEvents();
}
