import type { InboxFilters } from '@/lib/server/approvals/inbox';

/** The queue's URL for these filters (empty ones left out), so links keep the rest. */
export function queueHref(filters: InboxFilters, change: Partial<InboxFilters> = {}): string {
  const merged = { ...filters, ...change };
  const params = new URLSearchParams();
  for (const key of [
    'status',
    'host',
    'agent',
    'point',
    'reason',
    'session',
    'q',
    'sort',
  ] as const) {
    const v = merged[key];
    if (v) params.set(key, v);
  }
  if (merged.page && merged.page > 1) params.set('page', String(merged.page));
  const qs = params.toString();
  return qs ? `/approvals?${qs}` : '/approvals';
}

export function hasFilters(f: InboxFilters): boolean {
  return Boolean(f.status || f.host || f.agent || f.point || f.reason || f.session || f.q);
}
