import 'server-only';
import { updateTicketMessage } from '../slack/messages';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Shows a settled ticket's outcome in Slack: the bot's message is edited in
 * place, an incoming webhook gets a follow-up post. Editing to the same
 * content twice is harmless, so a retry after a lost answer is safe.
 */
export const slackUpdateJob = withHandler(jobDefinitions['slack.update'], async (payload, ctx) => {
  const result = await updateTicketMessage(ctx.db, payload.ticketId, ctx.log);
  if (result !== 'updated' && result !== 'followed_up') {
    ctx.log.debug({ ticketId: payload.ticketId, result }, 'slack.update skipped');
  }
});
