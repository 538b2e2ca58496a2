import { route } from '@/lib/server/http/route';
import { rotateBody } from '@/lib/server/webhooks/http';
import { rotateWebhookSecret } from '@/lib/server/webhooks/webhooks';

/**
 * POST /api/v1/webhooks/{kind}/rotate: a new secret (shown this once); the
 * current ones keep signing for `overlap_seconds` (default 24 h).
 */
export const POST = route({ auth: 'host', body: rotateBody }, async ({ host, params, body }) => {
  const secret = await rotateWebhookSecret(
    host.hostId,
    String(params.kind),
    null,
    body.overlap_seconds === undefined ? undefined : body.overlap_seconds * 1000,
  );
  return { secret };
});
