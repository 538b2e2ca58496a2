import 'server-only';
import { z } from 'zod';
import { updateTicketMessage } from '../slack/messages';
import { defineJob } from './define-job';

/**
 * Shows a settled ticket's outcome in Slack: the bot's message is edited in
 * place, an incoming webhook gets a follow-up post. Editing to the same
 * content twice is harmless, so a retry after a lost answer is safe.
 */
export const slackUpdateJob = defineJob({
  name: 'slack.update',
  schema: z.object({ ticketId: z.uuid() }).strict(),
  attempts: 8,
  backoffMs: 5_000,
  async handler(payload, ctx) {
    const result = await updateTicketMessage(ctx.db, payload.ticketId, ctx.log);
    if (result !== 'updated' && result !== 'followed_up') {
      ctx.log.debug({ ticketId: payload.ticketId, result }, 'slack.update skipped');
    }
  },
});

export function slackUpdateDedupeKey(ticketId: string): string {
  return `slack.update.${ticketId}`;
}
