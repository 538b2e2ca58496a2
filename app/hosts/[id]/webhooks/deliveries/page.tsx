import type { Metadata } from 'next';
import Link from 'next/link';
import { ActionsTh } from '@/app/components/admin-list';
import { Breadcrumb } from '@/app/components/breadcrumb';
import { PageHeader } from '@/app/components/page-header';
import { EmptyState } from '@/app/components/states';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import { requireArea } from '@/lib/server/auth/session';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { hostOr404 } from '../../../host-or-404';
import { WebhookAlerts } from '../webhook-alerts';
import { RedeliverButton } from '../webhook-forms';

export const metadata: Metadata = { title: 'Webhook deliveries' };

const STATUS_CLASS: Record<string, string> = {
  delivered: 'text-emerald-700',
  pending: 'text-slate-600',
  failed: 'text-amber-700',
  dead: 'text-red-700',
};

export default async function DeliveriesPage({ params }: { params: Promise<{ id: string }> }) {
  await requireArea('hosts');
  const { id } = await params;
  const host = await hostOr404(id);
  const rows = await listDeliveries(host.id, 200);
  const now = new Date().toISOString();
  return (
    <>
      <Breadcrumb
        trail={[
          { label: 'Hosts', href: '/hosts' },
          { label: host.name, href: `/hosts/${host.id}` },
          { label: 'Webhooks', href: `/hosts/${host.id}/webhooks` },
          { label: 'Deliveries' },
        ]}
      />
      <PageHeader
        title="Delivery log"
        description="Newest first. A redelivery sends the same webhook-id again, so receivers can deduplicate."
      />
      <WebhookAlerts hostId={host.id} />
      {rows.length === 0 ? (
        <EmptyState title="No deliveries yet">
          Callbacks appear here when this host&apos;s tickets are decided; resolver consultations
          when tickets are created.
        </EmptyState>
      ) : (
        <Table caption={`Webhook deliveries of ${host.name}`}>
          <thead>
            <tr>
              <Th>Created</Th>
              <Th>Kind</Th>
              <Th>Ticket</Th>
              <Th>Status</Th>
              <Th className="text-right">Attempts</Th>
              <Th className="text-right">Latency</Th>
              <Th>Last error</Th>
              <Th>Next attempt</Th>
              <ActionsTh />
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((d) => (
              <tr key={d.id} data-testid="delivery-row" data-status={d.status}>
                <Td className="whitespace-nowrap">
                  <Time value={d.createdAt.toISOString()} now={now} />
                </Td>
                <Td>{d.kind}</Td>
                <Td>
                  {d.ticketId ? (
                    <Link
                      href={`/approvals/${d.ticketId}`}
                      className="font-mono text-xs text-indigo-700 hover:underline"
                    >
                      {d.ticketId.slice(0, 8)}
                    </Link>
                  ) : (
                    '—'
                  )}
                </Td>
                <Td>
                  <span className={STATUS_CLASS[d.status]}>{d.status}</span>
                  {d.lastStatusCode !== null && (
                    <span className="ml-1 text-xs text-slate-500">HTTP {d.lastStatusCode}</span>
                  )}
                </Td>
                <Td className="text-right tabular-nums">{d.attempts}</Td>
                <Td className="text-right tabular-nums">
                  {d.latencyMs === null ? '—' : `${d.latencyMs} ms`}
                </Td>
                <Td>{d.lastError ? <code className="text-xs">{d.lastError}</code> : '—'}</Td>
                <Td className="whitespace-nowrap">
                  {d.nextAttemptAt ? <Time value={d.nextAttemptAt.toISOString()} now={now} /> : '—'}
                </Td>
                <Td>
                  {d.kind === 'callback' && d.status !== 'pending' && (
                    <RedeliverButton hostId={host.id} deliveryId={d.id} />
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
