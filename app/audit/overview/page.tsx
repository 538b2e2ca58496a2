import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditTabs } from '@/app/components/audit/audit-tabs';
import { BarChart } from '@/app/components/audit/bar-chart';
import { LineChart } from '@/app/components/audit/line-chart';
import { Card, PageHeader } from '@/app/components/page-header';
import { EmptyState } from '@/app/components/states';
import {
  getOverview,
  OVERVIEW_RANGES,
  type OverviewRange,
  parseRange,
} from '@/lib/server/audit/overview';
import { requireArea } from '@/lib/server/auth/session';

export const metadata: Metadata = { title: 'Audit overview' };

function RangePicker({ current }: { current: OverviewRange }) {
  return (
    <nav
      aria-label="Time range"
      className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 shadow-sm"
    >
      {(Object.keys(OVERVIEW_RANGES) as OverviewRange[]).map((r) => (
        <Link
          key={r}
          href={`/audit/overview?range=${r}`}
          aria-current={r === current ? 'page' : undefined}
          className={`rounded px-2.5 py-1 text-sm font-medium ${
            r === current ? 'bg-indigo-600 text-white' : 'text-slate-700 hover:bg-slate-100'
          }`}
        >
          {OVERVIEW_RANGES[r].label}
        </Link>
      ))}
    </nav>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 shadow-sm">
      <p className="text-xs text-slate-500">{label}</p>
      <p className="text-lg font-semibold tabular-nums text-slate-900">{value}</p>
    </div>
  );
}

export default async function OverviewPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireArea('audit');
  const range = parseRange((await searchParams).range);
  const o = await getOverview(actor, range);
  const unit = OVERVIEW_RANGES[range].unit;
  const n = (v: number) => v.toLocaleString('en-US');
  const per = unit === 'hour' ? 'hour' : 'day';
  return (
    <>
      <PageHeader
        title="Audit"
        description="The signals worth alerting on, over time. Buckets are UTC; each chart folds out as a table."
        actions={<RangePicker current={range} />}
      />
      <AuditTabs current="overview" />
      <div className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Stat label="Emissions" value={n(o.totals.emissions)} />
        <Stat label="Denies" value={n(o.totals.denies)} />
        <Stat label="Host errors" value={n(o.totals.hostErrors)} />
        <Stat label="Approvals requested" value={n(o.totals.requested)} />
      </div>
      {o.totals.emissions === 0 && o.totals.requested === 0 ? (
        <EmptyState title={`Nothing in the last ${OVERVIEW_RANGES[range].label}`}>
          Pick a longer range, or wait for hosts to send records.
        </EmptyState>
      ) : (
        <div className="grid gap-4 lg:grid-cols-2">
          <Card title={`Emissions per ${per}`}>
            <BarChart
              id="emissions"
              title={`Emissions per ${per}`}
              description={`Records received per ${per} over the last ${OVERVIEW_RANGES[range].label}; ${n(o.totals.emissions)} in all.`}
              buckets={o.buckets}
              unit={unit}
              series={[{ name: 'emissions', values: o.emissions }]}
            />
          </Card>
          <Card title="Denies by reason">
            <BarChart
              id="denies"
              title="Denies by reason"
              description={`Deny verdicts per ${per}, stacked by reason: the top reasons, the rest as other.`}
              buckets={o.buckets}
              unit={unit}
              series={o.deniesByReason}
            />
          </Card>
          <Card title="host_error rate">
            <LineChart
              id="host-errors"
              title="host_error rate"
              description={`Share of each ${per}'s records whose reason is a reserved host_error (§11).`}
              buckets={o.buckets}
              unit={unit}
              series={[{ name: 'host_error', values: o.hostErrorRate }]}
              format="percent"
            />
          </Card>
          <Card title="fold_truncated rate">
            <LineChart
              id="fold-truncated"
              title="fold_truncated rate"
              description={`Share of each ${per}'s records where an interceptor was never invoked (§10.3).`}
              buckets={o.buckets}
              unit={unit}
              series={[{ name: 'fold_truncated', values: o.foldTruncatedRate }]}
              format="percent"
            />
          </Card>
          <Card title="Approvals">
            <LineChart
              id="approvals"
              title="Approvals"
              description={`Tickets requested per ${per} (by creation) and approved, rejected or expired (by decision time).`}
              buckets={o.buckets}
              unit={unit}
              series={o.approvals}
              format="count"
            />
          </Card>
        </div>
      )}
    </>
  );
}
