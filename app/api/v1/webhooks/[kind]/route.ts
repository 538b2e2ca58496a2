import { route } from '@/lib/server/http/route';
import { saveBody, webhookJson } from '@/lib/server/webhooks/http';
import { deleteWebhook, saveWebhook } from '@/lib/server/webhooks/webhooks';

/**
 * PUT /api/v1/webhooks/{callback|resolver}: the calling host registers or
 * re-points its webhook. 201 with `secret` (shown this once) when it is new;
 * a resolver answers with its self-test and stays disabled if it failed.
 */
export const PUT = route({ auth: 'host', body: saveBody }, async ({ host, params, body }) => {
  const r = await saveWebhook(
    { hostId: host.hostId, kind: String(params.kind), url: body.url, timeoutMs: body.timeout_ms },
    null,
  );
  return Response.json(
    { webhook: webhookJson(r.webhook), secret: r.secret, self_test: r.selfTest },
    { status: r.secret ? 201 : 200 },
  );
});

/** DELETE /api/v1/webhooks/{kind}: 204; pending deliveries go with it. */
export const DELETE = route({ auth: 'host' }, async ({ host, params }) => {
  await deleteWebhook(host.hostId, String(params.kind), null);
  return null;
});
