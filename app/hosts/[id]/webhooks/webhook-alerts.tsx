import Link from 'next/link';
import { webhookAlerts } from '@/lib/server/webhooks/delivery-log';
import { webhookLatency } from '@/lib/server/webhooks/latency';

/**
 * The banner that tells admins an endpoint was switched off (failures or a
 * failed self-test), and the notice of a slow receiver. Also rendered on the
 * host page.
 */
export async function WebhookAlerts({ hostId, link = false }: { hostId: string; link?: boolean }) {
  const [alerts, latency] = await Promise.all([webhookAlerts(hostId), webhookLatency(hostId)]);
  return (
    <>
      <DisabledAlerts hostId={hostId} link={link} alerts={alerts} />
      <SlowReceivers hostId={hostId} link={link} slow={latency.filter((l) => l.slow)} />
    </>
  );
}

function DisabledAlerts({
  hostId,
  link,
  alerts,
}: {
  hostId: string;
  link: boolean;
  alerts: Awaited<ReturnType<typeof webhookAlerts>>;
}) {
  if (alerts.length === 0) return null;
  return (
    <div
      role="alert"
      data-testid="webhook-alert"
      className="mb-4 space-y-1 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
    >
      {alerts.map((a) => (
        <p key={a.id}>
          The {a.kind} webhook is disabled: {a.disabledReason ?? 'failures'}.{' '}
          {link && (
            <Link href={`/hosts/${hostId}/webhooks`} className="font-medium underline">
              Review webhooks
            </Link>
          )}
        </p>
      ))}
    </div>
  );
}

/**
 * A receiver that answers slowly fails nothing, so no streak shows it; but
 * it holds its host's few outbound slots and delays the host's own callbacks.
 */
function SlowReceivers({
  hostId,
  link,
  slow,
}: {
  hostId: string;
  link: boolean;
  slow: Awaited<ReturnType<typeof webhookLatency>>;
}) {
  if (slow.length === 0) return null;
  return (
    <div
      role="status"
      data-testid="slow-receiver"
      className="mb-4 space-y-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      {slow.map((l) => (
        <p key={l.webhookId}>
          Slow receiver: the {l.kind} webhook answered in {l.p50Ms} ms at p50 and {l.p95Ms} ms at
          p95 over its last {l.samples} deliveries (above {l.slowMs} ms; timeouts included).{' '}
          {link ? (
            <Link href={`/hosts/${hostId}/webhooks/deliveries`} className="font-medium underline">
              Delivery log
            </Link>
          ) : null}
        </p>
      ))}
    </div>
  );
}

/** The host page's way in: the banner when something is off, and a link. */
export function WebhooksEntry({ hostId }: { hostId: string }) {
  return (
    <>
      <WebhookAlerts hostId={hostId} link />
      <p className="mb-4 text-sm">
        <Link href={`/hosts/${hostId}/webhooks`} className="text-indigo-700 hover:underline">
          Webhooks (callback, resolver, delivery log) →
        </Link>
      </p>
    </>
  );
}
