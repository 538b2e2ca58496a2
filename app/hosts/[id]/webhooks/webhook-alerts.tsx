import Link from 'next/link';
import { webhookAlerts } from '@/lib/server/webhooks/delivery-log';

/**
 * The banner that tells admins an endpoint was switched off (failures or a
 * failed self-test). Also rendered on the host page.
 */
export async function WebhookAlerts({ hostId, link = false }: { hostId: string; link?: boolean }) {
  const alerts = await webhookAlerts(hostId);
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
