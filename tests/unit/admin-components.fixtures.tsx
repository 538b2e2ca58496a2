import Link from 'next/link';
import { ActionsTh, LastSeen, ManageLink } from '@/app/components/admin-list';
import { Breadcrumb } from '@/app/components/breadcrumb';
import { type ChangeEvent, ChangeHistory } from '@/app/components/change-history';
import { DetailHeader } from '@/app/components/detail-header';
import { PageHeader } from '@/app/components/page-header';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';

/**
 * Pairs of [markup the host and user pages wrote inline before the shared
 * components existed (copied from them), the same through the components].
 */

export const NOW = '2026-01-02T03:04:05.000Z';

export const breadcrumb = [
  <nav key="before" aria-label="Breadcrumb" className="mb-2 text-sm">
    <Link href="/hosts" className="text-indigo-700 hover:underline">
      Hosts
    </Link>
    <span className="text-slate-400"> / </span>
    <Link href="/hosts/h1" className="text-indigo-700 hover:underline">
      alpha
    </Link>
    <span className="text-slate-400"> / </span>
    <span className="text-slate-600">Webhooks</span>
  </nav>,
  <Breadcrumb
    key="after"
    trail={[
      { label: 'Hosts', href: '/hosts' },
      { label: 'alpha', href: '/hosts/h1' },
      { label: 'Webhooks' },
    ]}
  />,
];

export const detailHeader = [
  <>
    <nav aria-label="Breadcrumb" className="mb-2 text-sm">
      <Link href="/users" className="text-indigo-700 hover:underline">
        Users
      </Link>
      <span className="text-slate-400"> / </span>
      <span className="text-slate-600">a@example.com</span>
    </nav>
    <PageHeader
      title="Ann"
      description={
        <span className="inline-flex flex-wrap items-center gap-2">
          a@example.com <b>badge</b> <i>status</i>
        </span>
      }
    />
  </>,
  <DetailHeader
    key="after"
    trail={[{ label: 'Users', href: '/users' }, { label: 'a@example.com' }]}
    title="Ann"
  >
    a@example.com <b>badge</b> <i>status</i>
  </DetailHeader>,
];

const events: (ChangeEvent & { note: string | null })[] = [
  {
    id: '2',
    createdAt: new Date(NOW),
    action: 'host.updated',
    actorEmail: null,
    actorKind: 'system',
    note: 'name',
  },
  {
    id: '1',
    createdAt: new Date(NOW),
    action: 'host.created',
    actorEmail: 'a@x',
    actorKind: 'user',
    note: null,
  },
];

export const changeHistory = [
  <>
    <h2 className="mb-2 mt-8 text-sm font-semibold text-slate-800">Recent changes</h2>
    <Table caption={`Recent changes to ${'alpha'}`}>
      <thead>
        <tr>
          <Th>When</Th>
          <Th>Change</Th>
          <Th>By</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {events.map((e) => (
          <tr key={e.id}>
            <Td className="whitespace-nowrap">
              <Time value={e.createdAt.toISOString()} now={NOW} />
            </Td>
            <Td>
              <code className="text-xs">{e.action}</code>
              {e.note && <span className="ml-2 text-xs text-slate-500">{e.note}</span>}
            </Td>
            <Td>{e.actorEmail ?? e.actorKind}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  </>,
  <ChangeHistory key="after" subject="alpha" events={events} now={NOW} empty="unused" />,
];

export const emptyHistory = [
  <>
    <h2 className="mb-2 mt-8 text-sm font-semibold text-slate-800">Recent changes</h2>
    <p className="text-sm text-slate-500">No changes recorded for this user.</p>
  </>,
  <ChangeHistory
    key="after"
    subject="a@x"
    events={[]}
    now={NOW}
    empty="No changes recorded for this user."
  />,
];

export const listCells = [
  <tr key="before">
    <Th>
      <span className="sr-only">Actions</span>
    </Th>
    <Td className="whitespace-nowrap">
      <span className="text-slate-400">never</span>
    </Td>
    <Td className="whitespace-nowrap">
      <Time value={new Date(NOW).toISOString()} now={NOW} />
    </Td>
    <Td className="text-right">
      <Link
        href="/users/u1"
        className="rounded px-1.5 py-0.5 text-sm font-medium text-indigo-700 hover:bg-indigo-50"
        aria-label={`Manage ${'a@x'}`}
      >
        Manage
      </Link>
    </Td>
  </tr>,
  <tr key="after">
    <ActionsTh />
    <Td className="whitespace-nowrap">
      <LastSeen value={null} now={NOW} />
    </Td>
    <Td className="whitespace-nowrap">
      <LastSeen value={new Date(NOW)} now={NOW} />
    </Td>
    <Td className="text-right">
      <ManageLink href="/users/u1" name="a@x" />
    </Td>
  </tr>,
];
