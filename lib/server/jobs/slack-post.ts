import 'server-only';
import { z } from 'zod';
import { postTicketMessage } from '../slack/messages';
import { defineJob } from './define-job';

/**
 * Posts a new ticket to Slack, once (the ticket stores slackChannel/slackTs,
 * and the job id is `slack.post.<ticketId>`). Slack being down or rate
 * limiting is retried with doubling delays, 5 s up to about 10 minutes.
 */
export const slackPostJob = defineJob({
  name: 'slack.post',
  schema: z.object({ ticketId: z.uuid() }).strict(),
  attempts: 8,
  backoffMs: 5_000,
  async handler(payload, ctx) {
    const result = await postTicketMessage(ctx.db, payload.ticketId, ctx.log);
    if (result !== 'posted')
      ctx.log.debug({ ticketId: payload.ticketId, result }, 'slack.post skipped');
  },
});

export function slackPostDedupeKey(ticketId: string): string {
  return `slack.post.${ticketId}`;
}
