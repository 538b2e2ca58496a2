import type { Metadata } from 'next';
import { ChangeHistory } from '@/app/components/change-history';
import { DetailHeader } from '@/app/components/detail-header';
import { Card } from '@/app/components/page-header';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import { formatAbsolute } from '@/app/components/time-format';
import { requireArea } from '@/lib/server/auth/session';
import { formatDuration, listApiKeys, listHostEvents } from '@/lib/server/hosts';
import { HostBadges } from '../host-badges';
import {
  REDACTION_HELP,
  type RedactionPathWarning,
  redactionPathWarnings,
} from '@/lib/server/hosts/redaction-coverage';
import { HostForm } from '../host-form';
import { hostOr404 } from '../host-or-404';
import { IssueKeyForm, RevokeKeyButton } from './api-keys';
import { ArchiveForm } from './archive-form';
import { CreatedBanner } from './created-banner';
import { WebhooksEntry } from './webhooks/webhook-alerts';

export const metadata: Metadata = { title: 'Host' };

export default async function HostPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ created?: string }>;
}) {
  await requireArea('hosts');
  const { id } = await params;
  const { created } = await searchParams;
  const host = await hostOr404(id);
  const [keys, events, unmatched] = await Promise.all([
    listApiKeys(host.id),
    listHostEvents(host.id),
    redactionPathWarnings(host.id, host.redactionPaths),
  ]);
  const now = new Date().toISOString();
  const archived = Boolean(host.archivedAt);
  return (
    <>
      <DetailHeader
        trail={[{ label: 'Hosts', href: '/hosts' }, { label: host.name }]}
        title={host.name}
      >
        {host.description || 'No description.'}
        <HostBadges builtIn={host.builtIn} archived={archived} />
      </DetailHeader>
      {created === '1' && <CreatedBanner />}
      <WebhooksEntry hostId={host.id} />
      <RedactionWarnings warnings={unmatched} />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_22rem]">
        <Card title="API keys">
          <div className="space-y-4">
            {archived ? (
              <p className="text-sm text-slate-600">Restore the host to create keys.</p>
            ) : (
              <IssueKeyForm hostId={host.id} disabled={false} />
            )}
            <KeysTable keys={keys} now={now} />
          </div>
        </Card>
        <div className="space-y-6">
          <Card title="Settings">
            <HostForm
              redactionHelp={REDACTION_HELP}
              initial={{
                hostId: host.id,
                name: host.name,
                description: host.description,
                defaultTimeout: formatDuration(host.defaultTimeoutMs),
                maxTimeout: formatDuration(host.maxTimeoutMs),
                redactionPaths: host.redactionPaths.join('\n'),
                builtIn: host.builtIn,
              }}
            />
          </Card>
          {!host.builtIn && (
            <Card title="Archive">
              <ArchiveForm key={String(archived)} hostId={host.id} archived={archived} />
            </Card>
          )}
        </div>
      </div>
      <ChangeHistory
        subject={host.name}
        events={events.map((e) => ({ ...e, note: eventNote(e.details) }))}
        now={now}
        empty="No changes recorded for this host."
      />
    </>
  );
}

/** A short, secret-free note for an audit row: which key, or which fields changed. */
function eventNote(details: unknown): string | null {
  const d = (details ?? {}) as { name?: unknown; prefix?: unknown; changed?: unknown };
  if (typeof d.prefix === 'string') return `${String(d.name)} (${d.prefix}…)`;
  if (Array.isArray(d.changed)) return d.changed.join(', ');
  return null;
}

type KeyRow = Awaited<ReturnType<typeof listApiKeys>>[number];

function KeysTable({ keys, now }: { keys: KeyRow[]; now: string }) {
  if (keys.length === 0) return <p className="text-sm text-slate-500">No keys yet.</p>;
  return (
    <Table caption="API keys">
      <thead>
        <tr>
          <Th>Key</Th>
          <Th>Created</Th>
          <Th>Last used</Th>
          <Th>
            <span className="sr-only">Status and actions</span>
          </Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {keys.map((k) => (
          <tr key={k.id} className={k.revokedAt ? 'text-slate-500' : undefined}>
            <Td>
              <div className="font-medium text-slate-900">{k.name}</div>
              <code className="text-xs">{k.prefix}…</code>
            </Td>
            <Td className="whitespace-nowrap">
              <Moment value={k.createdAt} now={now} />
              <div className="text-xs text-slate-500">by {k.createdBy?.email ?? 'system'}</div>
            </Td>
            <Td className="whitespace-nowrap">
              {k.lastUsedAt ? (
                <Moment value={k.lastUsedAt} now={now} />
              ) : (
                <span className="text-slate-400">never</span>
              )}
            </Td>
            <Td className="text-right">
              {k.revokedAt ? (
                <span className="text-xs">
                  <span className="rounded bg-red-50 px-1.5 py-0.5 font-medium text-red-700 ring-1 ring-inset ring-red-200">
                    revoked
                  </span>
                  <span className="mt-1 block">
                    <Time value={k.revokedAt.toISOString()} now={now} />
                  </span>
                </span>
              ) : (
                <RevokeKeyButton apiKeyId={k.id} name={k.name} />
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Relative time, with the absolute UTC time spelled out under it. */
function Moment({ value, now }: { value: Date; now: string }) {
  return (
    <>
      <Time value={value.toISOString()} now={now} />
      <div className="text-xs text-slate-500">{formatAbsolute(value)}</div>
    </>
  );
}

/** Configured redaction paths that matched nothing in any of the host's recent tickets (issue 14). */
function RedactionWarnings({ warnings }: { warnings: RedactionPathWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <div
      role="alert"
      data-testid="redaction-warnings"
      className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      <p className="font-medium">
        {warnings.length === 1
          ? 'A redaction path hides nothing'
          : `${warnings.length} redaction paths hide nothing`}
      </p>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        {warnings.map((w) => (
          <li key={w.path}>
            <code className="font-mono">{w.path}</code> matched nothing in{' '}
            {w.tickets === 1 ? 'the last ticket' : `any of the last ${w.tickets} tickets`} (
            {w.points.map((p) => p.point).join(', ')}): reviewers, the resolver webhook and Slack
            saw those values in clear.
            {w.points
              .filter((p) => p.suggestion)
              .map((p) => (
                <span key={p.point}>
                  {' '}
                  At {p.point}, write <code className="font-mono">{p.suggestion}</code>.
                </span>
              ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
