'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { formatAbsolute } from '../time-format';

/**
 * Refreshes the page when a ticket's resolver phase ends by time (issue 6):
 * the server then renders it as an ordinary pending ticket. An earlier
 * hand-over arrives as a ticket event instead (live-queue, ticket-watch).
 */
function useRefreshAt(until: string) {
  const router = useRouter();
  useEffect(() => {
    const ms = new Date(until).getTime() - Date.now();
    // setTimeout's limit is ~24.8 days; a phase is at most 30 s plus a margin.
    const id = setTimeout(() => router.refresh(), Math.max(0, Math.min(ms + 250, 2 ** 31 - 1)));
    return () => clearTimeout(id);
  }, [until, router]);
}

/** The queue's calm label for a ticket the automated resolver holds: no countdown pressure. */
export function ResolverBadge({ until }: { until: string }) {
  useRefreshAt(until);
  return (
    <span
      data-testid="with-resolver"
      title={`An automated resolver is deciding; reviewers get it by ${formatAbsolute(new Date(until))} at the latest.`}
      className="inline-block rounded bg-slate-50 px-1.5 py-0.5 text-xs font-medium text-slate-600 ring-1 ring-inset ring-slate-200"
    >
      with resolver
    </span>
  );
}

/** The ticket page's decision area while the resolver holds the ticket. */
export function ResolverHold({ until }: { until: string }) {
  useRefreshAt(until);
  return (
    <p className="text-sm text-slate-600" data-testid="resolver-hold" role="status">
      An automated resolver is deciding this ticket; it reaches reviewers by{' '}
      <time dateTime={until}>{formatAbsolute(new Date(until))}</time> at the latest. Nothing to do
      yet.
    </p>
  );
}
