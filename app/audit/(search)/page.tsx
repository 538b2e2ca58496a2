import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditTabs } from '@/app/components/audit/audit-tabs';
import { ExportButtons } from '@/app/components/audit/export-button';
import { buttonClass } from '@/app/components/button-class';
import { PageHeader } from '@/app/components/page-header';
import { EmptyState, ErrorState } from '@/app/components/states';
import {
  type RawParams,
  filtersToParams,
  hasAnyFilter,
  parseAuditFilters,
} from '@/lib/server/audit/filters';
import { listAuditHosts } from '@/lib/server/audit/hosts';
import { type SearchPage, searchRecords } from '@/lib/server/audit/search';
import { requireArea } from '@/lib/server/auth/session';
import { ApiError } from '@/lib/server/http/api-error';
import { ResultsTable } from '../results-table';
import { SearchForm } from '../search-form';

export const metadata: Metadata = { title: 'Audit' };

function countText(page: SearchPage): string {
  const n = page.count.value.toLocaleString('en-US');
  // Counting ran past its budget: the planner's estimate, said as one.
  if (page.count.estimated) return `about ${n}${page.count.capped ? '+' : ''} records (estimated)`;
  if (page.count.capped) return `${n}+ records`;
  return `${n} ${page.count.value === 1 ? 'record' : 'records'}`;
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const actor = await requireArea('audit');
  const raw = await searchParams;
  const hosts = await listAuditHosts(actor);
  const cursor = typeof raw.cursor === 'string' ? raw.cursor : null;
  let page: SearchPage | null = null;
  let failure: ApiError | null = null;
  let query = new URLSearchParams();
  let filtered = false;
  try {
    const filters = parseAuditFilters(raw);
    query = filtersToParams(filters);
    page = await searchRecords(actor, filters, { cursor });
    filtered = hasAnyFilter(filters);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    failure = err;
  }
  const now = new Date().toISOString();
  const qs = query.toString();
  const nextHref = page?.nextCursor
    ? `/audit?${qs ? `${qs}&` : ''}cursor=${page.nextCursor}`
    : null;
  return (
    <>
      <PageHeader
        title="Audit"
        description="Every InterceptionRecord the hosts sent: find a session, what was blocked, and who approved what."
        actions={
          page && page.count.value > 0 ? (
            <ExportButtons href={`/api/audit/export${qs ? `?${qs}` : ''}`} />
          ) : undefined
        }
      />
      <AuditTabs current="search" />
      <SearchForm raw={raw} hosts={hosts} />
      {failure && (
        <ErrorState title="That search could not run">
          <p data-code={failure.code}>{failure.message}</p>
        </ErrorState>
      )}
      {page && (
        <>
          <div className="mb-2 flex items-center justify-between text-sm text-slate-600">
            <p data-testid="result-count" aria-live="polite">
              {countText(page)}
              {cursor && ' · later page'}
            </p>
          </div>
          {page.rows.length === 0 ? (
            <EmptyState title={cursor ? 'No more records' : 'No records match'}>
              {filtered
                ? 'Loosen a filter, or widen the time range.'
                : 'Records appear here once a host sends them (POST /api/v1/records) or the embedded engine emits.'}
            </EmptyState>
          ) : (
            <ResultsTable rows={page.rows} now={now} />
          )}
          <nav aria-label="Pages" className="mt-3 flex items-center gap-2">
            {cursor && (
              <Link href={`/audit${qs ? `?${qs}` : ''}`} className={buttonClass('secondary')}>
                Newest
              </Link>
            )}
            {nextHref && (
              <Link href={nextHref} className={buttonClass('secondary')} rel="next">
                Older records →
              </Link>
            )}
          </nav>
        </>
      )}
    </>
  );
}
