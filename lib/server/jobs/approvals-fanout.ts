import 'server-only';
import { enqueueSlackPost, enqueueSlackUpdate } from '../slack/fanout';
import { createCallbackDelivery } from '../webhooks/deliveries';
import { offerTicketToResolver } from '../webhooks/fanout';
import { jobDefinitions } from './definitions';
import { type JobContext, withHandler } from './runnable';

/**
 * The ticket fan-out: what happens after a ticket is created or settled,
 * beyond the ticket itself. Each function runs its steps in order; a new
 * step is one more line here. A step must be idempotent per ticket (the job
 * may run again after a later step failed, or after a relay crashed mid-add)
 * and throws to make the whole job retry.
 */

type Step = { name: string; run: () => Promise<unknown> };

async function runSteps(ticketId: string, ctx: JobContext, steps: Step[]): Promise<void> {
  for (const step of steps) {
    try {
      await step.run();
    } catch (err) {
      ctx.log.warn({ fanout: step.name, ticketId, err: String(err) }, 'ticket fan-out failed');
      throw err;
    }
  }
}

/** A new ticket: offered to the host's resolver webhook, then (maybe deferred) posted to Slack. */
export function fanOutCreatedTicket(ticketId: string, ctx: JobContext): Promise<void> {
  return runSteps(ticketId, ctx, [
    { name: 'webhooks', run: () => offerTicketToResolver(ctx.db, ticketId) },
    { name: 'slack', run: () => enqueueSlackPost(ctx.db, ticketId) },
  ]);
}

/** An approved, rejected or expired ticket: the host's callback, then the Slack update. */
export function fanOutResolvedTicket(ticketId: string, ctx: JobContext): Promise<void> {
  return runSteps(ticketId, ctx, [
    { name: 'webhooks', run: () => createCallbackDelivery(ticketId) },
    { name: 'slack', run: () => enqueueSlackUpdate(ctx.db, ticketId) },
  ]);
}

export const approvalsCreatedJob = withHandler(jobDefinitions['approvals.created'], (p, ctx) =>
  fanOutCreatedTicket(p.ticketId, ctx),
);

export const approvalsResolvedJob = withHandler(jobDefinitions['approvals.resolved'], (p, ctx) =>
  fanOutResolvedTicket(p.ticketId, ctx),
);
