import 'server-only';
import { consultResolver } from '../webhooks/resolver';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Consults the host's resolver webhook for a new ticket, once (the delivery
 * row guards reruns). A failed consultation is not retried: it hands the
 * ticket to the reviewers; if this job never runs, the end of the resolver
 * phase does (approvals/resolver-phase.ts).
 */
export const webhooksResolveJob = withHandler(
  jobDefinitions['webhooks.resolve'],
  async (p, ctx) => {
    await consultResolver(p.ticketId, ctx.hostSlots);
  },
);
