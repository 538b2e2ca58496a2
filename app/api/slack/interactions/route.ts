import { route } from '@/lib/server/http/route';
import { handleSlackInteraction } from '@/lib/server/slack/interactions';

/**
 * Slack's interactivity request URL: signed by Slack, no session
 * (lib/server/slack/interactions.ts). Slack bodies are small: route()'s size
 * guard refuses anything past 256 KiB (413) before reading or verifying it.
 */
export const POST = route(
  { auth: 'public', text: 'form', maxBodyBytes: 256 * 1024 },
  async ({ req, text }) => {
    const answer = await handleSlackInteraction(text, req.headers);
    return answer.body === null
      ? new Response(null, { status: answer.status })
      : Response.json(answer.body, { status: answer.status });
  },
);
