import Link from 'next/link';
import { buttonClass } from '@/app/components/button-class';
import { inputClass } from '@/app/components/field';
import { INTERCEPTION_POINTS } from '@checkpoint/agent-hooks';
import type { InboxFilters } from '@/lib/server/approvals/inbox';

/** The queue's filters: a plain GET form, so the filters live in the URL. */
export function FiltersForm({
  filters,
  hosts,
}: {
  filters: InboxFilters;
  hosts: { id: string; name: string }[];
}) {
  const small = `${inputClass} py-1 text-xs`;
  return (
    <form
      method="get"
      action="/approvals"
      aria-label="Filter tickets"
      className="mb-3 grid grid-cols-2 items-end gap-2 sm:grid-cols-3 lg:grid-cols-[repeat(5,minmax(0,1fr))_auto]"
    >
      {filters.status && <input type="hidden" name="status" value={filters.status} />}
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Host</span>
        <select name="host" defaultValue={filters.host ?? ''} className={small}>
          <option value="">All hosts</option>
          {hosts.map((h) => (
            <option key={h.id} value={h.id}>
              {h.name}
            </option>
          ))}
        </select>
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Agent</span>
        <input name="agent" defaultValue={filters.agent} placeholder="agent id" className={small} />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Interception point</span>
        <select name="point" defaultValue={filters.point ?? ''} className={small}>
          <option value="">All points</option>
          {INTERCEPTION_POINTS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Reason</span>
        <input
          name="reason"
          defaultValue={filters.reason}
          placeholder="e.g. large_transfer"
          className={small}
        />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>
          Session <kbd className="rounded border border-slate-300 px-1 font-normal">/</kbd>
        </span>
        <input
          id="filter-session"
          name="session"
          type="search"
          defaultValue={filters.session}
          placeholder="session id starts with…"
          className={small}
        />
      </label>
      <div className="flex gap-2">
        <button type="submit" className={buttonClass('secondary', 'py-1 text-xs')}>
          Filter
        </button>
        <Link href="/approvals" className={buttonClass('ghost', 'py-1 text-xs')}>
          Clear
        </Link>
      </div>
    </form>
  );
}
