import 'server-only';
import { postTicketMessage } from '../slack/messages';
import { jobDefinitions } from './definitions';
import { withHandler } from './runnable';

/**
 * Posts a new ticket to Slack, once (the ticket stores slackChannel/slackTs,
 * and the job id is `slack.post.<ticketId>`). Slack being down or rate
 * limiting is retried with doubling delays, 5 s up to about 10 minutes.
 */
export const slackPostJob = withHandler(jobDefinitions['slack.post'], async (payload, ctx) => {
  const result = await postTicketMessage(ctx.db, payload.ticketId, ctx.log);
  if (result !== 'posted')
    ctx.log.debug({ ticketId: payload.ticketId, result }, 'slack.post skipped');
});
