import { route } from '@/lib/server/http/route';
import { handleSlackInteraction } from '@/lib/server/slack/interactions';

const MAX_BYTES = 256 * 1024;

/** Slack's interactivity request URL: signed by Slack, no session (lib/server/slack/interactions.ts). */
export const POST = route({ auth: 'public' }, async ({ req }) => {
  // Slack bodies are small; refuse anything large before reading or verifying it.
  const declared = Number(req.headers.get('content-length') ?? 0);
  const raw = declared > MAX_BYTES ? '' : await req.text();
  if (declared > MAX_BYTES || raw.length > MAX_BYTES) {
    return Response.json(
      { error: { code: 'payload_too_large', message: 'The body is too large.' } },
      { status: 413 },
    );
  }
  const answer = await handleSlackInteraction(raw, req.headers);
  return answer.body === null
    ? new Response(null, { status: answer.status })
    : Response.json(answer.body, { status: answer.status });
});
