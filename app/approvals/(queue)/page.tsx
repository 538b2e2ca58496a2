import type { Metadata } from 'next';
import Link from 'next/link';
import { LiveQueue } from '@/app/components/approvals/live-queue';
import { PageHeader } from '@/app/components/page-header';
import { Role } from '@/lib/server/auth/roles';
import {
  type InboxFilters,
  type InboxPage,
  inboxSummary,
  listInboxHosts,
  listInboxTickets,
  parseInboxFilters,
  TICKET_STATUSES,
} from '@/lib/server/approvals/inbox';
import { requireUser } from '@/lib/server/auth/session';
import { ConnectHost } from '../connect-host';
import { INTERCEPTION_POINTS } from '@checkpoint/agent-hooks';
import { FiltersForm } from '../filters-form';
import { hasFilters, queueHref } from '../query';
import { QueueTable } from '../queue-table';

export const metadata: Metadata = { title: 'Approvals' };

/** The reviewer queue: pending first (soonest deadline), then recent decisions. */
export default async function ApprovalsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser(Role.admin, Role.reviewer, Role.auditor);
  const filters = parseInboxFilters(await searchParams);
  const [page, hosts, summary] = await Promise.all([
    listInboxTickets(filters),
    listInboxHosts(),
    inboxSummary(),
  ]);
  const now = new Date().toISOString();
  const nothingYet = page.counts.all === 0 && !hasFilters(filters);
  return (
    <>
      <PageHeader
        title="Approvals"
        description={
          <>
            Requests your agents are waiting on. Pending tickets come first, soonest deadline first.
            Keys: <Kbd>j</Kbd>/<Kbd>k</Kbd> move, <Kbd>o</Kbd> opens, <Kbd>/</Kbd> searches.
          </>
        }
      />
      <StatusTabs filters={filters} page={page} />
      <FiltersForm filters={filters} hosts={hosts} points={INTERCEPTION_POINTS} />
      <LiveQueue
        visibleIds={page.rows.map((r) => r.id)}
        autoRefresh={page.rows.every((r) => r.status !== 'pending')}
        latest={summary.latest}
      >
        {nothingYet ? (
          <ConnectHost isAdmin={user.roles.includes(Role.admin)} />
        ) : page.rows.length === 0 ? (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-10 text-center text-sm text-slate-600">
            <p className="font-medium text-slate-800">No tickets match these filters.</p>
            <Link href="/approvals" className="mt-1 inline-block text-indigo-700 hover:underline">
              Clear the filters
            </Link>
          </div>
        ) : (
          <QueueTable rows={page.rows} now={now} />
        )}
      </LiveQueue>
      <Pager filters={filters} page={page} />
    </>
  );
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-slate-300 bg-white px-1 text-xs">{children}</kbd>;
}

function StatusTabs({ filters, page }: { filters: InboxFilters; page: InboxPage }) {
  const tabs = [undefined, ...TICKET_STATUSES] as const;
  return (
    <nav aria-label="Status" className="mb-3 flex flex-wrap gap-1 border-b border-slate-200">
      {tabs.map((s) => {
        const current = filters.status === s;
        return (
          <Link
            key={s ?? 'all'}
            href={queueHref(filters, { status: s, page: 1 })}
            aria-current={current ? 'page' : undefined}
            className={`-mb-px border-b-2 px-3 py-1.5 text-sm ${
              current
                ? 'border-indigo-600 font-medium text-indigo-700'
                : 'border-transparent text-slate-600 hover:text-slate-900'
            }`}
          >
            {s ? s[0].toUpperCase() + s.slice(1) : 'All'}{' '}
            <span
              data-testid={`count-${s ?? 'all'}`}
              className="ml-0.5 rounded-full bg-slate-100 px-1.5 text-xs tabular-nums text-slate-700"
            >
              {page.counts[s ?? 'all']}
            </span>
          </Link>
        );
      })}
    </nav>
  );
}

function Pager({ filters, page }: { filters: InboxFilters; page: InboxPage }) {
  if (page.pageCount <= 1) return null;
  return (
    <nav aria-label="Pages" className="mt-3 flex items-center justify-between text-sm">
      <span className="text-slate-600">
        Page {page.page} of {page.pageCount} · {page.total} tickets
      </span>
      <span className="flex gap-2">
        {page.page > 1 && (
          <Link
            href={queueHref(filters, { page: page.page - 1 })}
            className="text-indigo-700 hover:underline"
          >
            ← Previous
          </Link>
        )}
        {page.page < page.pageCount && (
          <Link
            href={queueHref(filters, { page: page.page + 1 })}
            className="text-indigo-700 hover:underline"
          >
            Next →
          </Link>
        )}
      </span>
    </nav>
  );
}
