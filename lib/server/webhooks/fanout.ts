import 'server-only';
import type { JobContext } from '../jobs/define-job';

/**
 * What happens after a ticket is created or settled, beyond the ticket
 * itself: host callbacks, the resolver webhook, Slack. Each part appends one
 * entry here instead of editing the `approvals.created` / `approvals.resolved`
 * handlers, which run every entry in order for the ticket.
 *
 * An entry must be idempotent per ticket: the job may run more than once
 * (a retry after a later entry failed, or a relay that crashed mid-add).
 * Throwing makes the whole job retry.
 *
 * This module imports nothing at run time, so an entry module can import it
 * while the job registry is still loading. The outbox rows that trigger the
 * jobs are written by `enqueueTicketFanout` (./enqueue-fanout.ts).
 */
export interface TicketFanoutEntry {
  /** Shown in logs ("webhooks.callback", "slack.post"). */
  name: string;
  onCreated?: (ticketId: string, ctx: JobContext) => Promise<void>;
  /** Runs when a ticket is approved, rejected or expired. */
  onResolved?: (ticketId: string, ctx: JobContext) => Promise<void>;
}

/** Append-only list, filled by modules at import time (see fanout-entries.ts). */
export const ticketFanout: TicketFanoutEntry[] = [];

export type TicketFanoutKind = 'approvals.created' | 'approvals.resolved';

/** Runs every entry's hook for the ticket, in order; the first failure throws. */
export async function runTicketFanout(
  kind: TicketFanoutKind,
  ticketId: string,
  ctx: JobContext,
): Promise<void> {
  for (const entry of ticketFanout) {
    const hook = kind === 'approvals.created' ? entry.onCreated : entry.onResolved;
    if (!hook) continue;
    try {
      await hook(ticketId, ctx);
    } catch (err) {
      ctx.log.warn({ fanout: entry.name, ticketId, err: String(err) }, 'ticket fan-out failed');
      throw err;
    }
  }
}
