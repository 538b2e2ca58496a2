import type { Metadata } from 'next';
import { ActionsTh, LastSeen, ManageLink } from '@/app/components/admin-list';
import { Card, PageHeader } from '@/app/components/page-header';
import { EmptyState } from '@/app/components/states';
import { Table, Td, Th } from '@/app/components/table';
import { requireArea } from '@/lib/server/auth/session';
import { formatDuration, listHosts } from '@/lib/server/hosts';
import { HostBadges } from './host-badges';
import { REDACTION_HELP } from '@/lib/server/hosts/redaction-coverage';
import { HostForm } from './host-form';

export const metadata: Metadata = { title: 'Hosts' };

export default async function HostsPage() {
  await requireArea('hosts');
  const hosts = await listHosts();
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader
        title="Hosts"
        description="The agent hosts that send approval requests, their API keys, deadlines and redaction."
      />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_22rem]">
        {hosts.length === 0 ? (
          <EmptyState title="No hosts yet">Register one to issue it an API key.</EmptyState>
        ) : (
          <Table caption="Hosts">
            <thead>
              <tr>
                <Th>Host</Th>
                <Th>Timeouts (default / max)</Th>
                <Th>Active keys</Th>
                <Th>Last used</Th>
                <ActionsTh />
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {hosts.map((h) => (
                <tr key={h.id} className={h.archivedAt ? 'text-slate-500' : undefined}>
                  <Td>
                    <div className="flex flex-wrap items-center gap-1.5 font-medium text-slate-900">
                      {h.name} <HostBadges builtIn={h.builtIn} archived={Boolean(h.archivedAt)} />
                    </div>
                    {h.description && (
                      <div className="max-w-md truncate text-xs text-slate-500">
                        {h.description}
                      </div>
                    )}
                  </Td>
                  <Td className="whitespace-nowrap">
                    {formatDuration(h.defaultTimeoutMs)} / {formatDuration(h.maxTimeoutMs)}
                  </Td>
                  <Td>{h.activeKeys}</Td>
                  <Td className="whitespace-nowrap">
                    <LastSeen value={h.lastUsedAt} now={now} />
                  </Td>
                  <Td className="text-right">
                    <ManageLink href={`/hosts/${h.id}`} name={h.name} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <Card title="Register a host">
          <HostForm
            redactionHelp={REDACTION_HELP}
            initial={{
              name: '',
              description: '',
              defaultTimeout: '15m',
              maxTimeout: '1d',
              redactionPaths: '',
              builtIn: false,
            }}
          />
        </Card>
      </div>
    </>
  );
}
