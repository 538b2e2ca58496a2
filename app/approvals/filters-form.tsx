'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import { buttonClass } from '@/app/components/button-class';
import { inputClass } from '@/app/components/field';
import type { InboxFilters } from '@/lib/server/approvals/inbox';

/** The order of the fields in the URL; empty ones are left out. */
const KEYS = ['status', 'q', 'host', 'agent', 'point', 'reason', 'session', 'sort'] as const;

/**
 * The queue's filters (issue 14). A GET form, so the filters live in the
 * URL and work without script; with script, a select applies at once and
 * the URL carries only the filters that are set. Agent and session match
 * what the queue shows (label) or the id; the search box looks through the
 * tool, reason, agent, session and host.
 */
export function FiltersForm({
  filters,
  hosts,
  points,
}: {
  filters: InboxFilters;
  hosts: { id: string; name: string }[];
  points: readonly string[];
}) {
  const router = useRouter();
  const small = `${inputClass} py-1 text-xs`;
  const go = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const key of KEYS) {
      const v = String(data.get(key) ?? '').trim();
      if (v && !(key === 'sort' && v === 'deadline')) params.set(key, v);
    }
    const qs = params.toString();
    router.push(qs ? `/approvals?${qs}` : '/approvals');
  };
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    go(e.currentTarget);
  };
  const applyNow = (e: { currentTarget: HTMLSelectElement }) => {
    if (e.currentTarget.form) go(e.currentTarget.form);
  };
  return (
    <form
      method="get"
      action="/approvals"
      aria-label="Filter tickets"
      onSubmit={onSubmit}
      className="mb-3 grid grid-cols-2 items-end gap-2 sm:grid-cols-3 lg:grid-cols-[minmax(0,2fr)_repeat(6,minmax(0,1fr))_auto]"
    >
      {filters.status && <input type="hidden" name="status" value={filters.status} />}
      <label className="col-span-2 space-y-0.5 text-xs font-medium text-slate-600 sm:col-span-3 lg:col-span-1">
        <span>Search</span>
        <input
          name="q"
          type="search"
          defaultValue={filters.q}
          placeholder="tool, reason, agent, session, host…"
          className={small}
        />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Host</span>
        <select name="host" defaultValue={filters.host ?? ''} onChange={applyNow} className={small}>
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
        <input
          name="agent"
          defaultValue={filters.agent}
          placeholder="label or id"
          className={small}
        />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Interception point</span>
        <select
          name="point"
          defaultValue={filters.point ?? ''}
          onChange={applyNow}
          className={small}
        >
          <option value="">All points</option>
          {points.map((p) => (
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
          placeholder="starts with, e.g. large_"
          className={small}
        />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>
          Session{' '}
          <kbd aria-hidden className="rounded border border-slate-300 px-1 font-normal">
            /
          </kbd>
        </span>
        <input
          id="filter-session"
          name="session"
          type="search"
          defaultValue={filters.session}
          placeholder="label, or id starts with…"
          aria-keyshortcuts="/"
          className={small}
        />
      </label>
      <label className="space-y-0.5 text-xs font-medium text-slate-600">
        <span>Order</span>
        <select
          name="sort"
          defaultValue={filters.sort ?? 'deadline'}
          onChange={applyNow}
          className={small}
        >
          <option value="deadline">Soonest deadline</option>
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </select>
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
