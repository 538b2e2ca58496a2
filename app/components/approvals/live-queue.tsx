'use client';

import { useRouter } from 'next/navigation';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { useQueueKeys } from './use-queue-keys';
import { useTicketEvents } from './use-ticket-events';

const POLL_MS = 5000;

/**
 * Keeps the queue current without a reload. New tickets are announced in a
 * calm bar ("3 new tickets · Show") rather than pushed under the reviewer's
 * cursor; when the queue is empty they simply appear. Decisions and
 * expiries of visible rows refresh the page quietly. Live over SSE; when
 * the stream fails, short polling of /api/approvals/summary takes over.
 */
export function LiveQueue({
  visibleIds,
  autoRefresh,
  latest,
  children,
}: {
  visibleIds: string[];
  autoRefresh: boolean;
  /** The newest ticket when the page was rendered (inboxSummary().latest): the polling baseline. */
  latest: string | null;
  children: ReactNode;
}) {
  const router = useRouter();
  const [fresh, setFresh] = useState(0);
  const [mode, setMode] = useState<'connecting' | 'live' | 'polling'>('connecting');
  const visible = useRef(new Set(visibleIds));
  visible.current = new Set(visibleIds);
  const auto = useRef(autoRefresh);
  auto.current = autoRefresh;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // What polling compares against: the page's newest ticket, moved on by each
  // poll that saw a newer one, and reset when a refresh brings a new page.
  const baseline = useRef(latest);
  const rendered = useRef(latest);
  if (rendered.current !== latest) {
    rendered.current = latest;
    baseline.current = latest;
  }

  const refreshSoon = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      router.refresh();
    }, 300);
  }, [router]);

  const showNew = useCallback(() => {
    setFresh(0);
    router.refresh();
  }, [router]);

  useQueueKeys(showNew);

  // The polling fallback: runs while the stream is down (and the tab visible).
  const poll = useRef<ReturnType<typeof setInterval> | null>(null);
  const stopPolling = useCallback(() => {
    if (poll.current) clearInterval(poll.current);
    poll.current = null;
  }, []);
  const startPolling = useCallback(() => {
    setMode('polling');
    if (poll.current) return;
    poll.current = setInterval(async () => {
      if (document.visibilityState === 'hidden') return;
      const res = await fetch('/api/approvals/summary', { cache: 'no-store' }).catch(() => null);
      if (!res?.ok) return;
      const { latest: now } = (await res.json()) as { latest: string | null };
      if (now !== baseline.current) {
        baseline.current = now;
        if (auto.current) refreshSoon();
        else setFresh((n) => n + 1);
      }
    }, POLL_MS);
  }, [refreshSoon]);
  useEffect(
    () => () => {
      stopPolling();
      if (timer.current) clearTimeout(timer.current);
    },
    [stopPolling],
  );

  useTicketEvents({
    onEvent: (e) => {
      if (e.type === 'created') {
        if (auto.current) refreshSoon();
        else setFresh((n) => n + 1);
      } else if (visible.current.has(e.ticketId)) {
        refreshSoon();
      }
    },
    onOpen: () => {
      setMode('live');
      stopPolling();
    },
    onError: startPolling,
    // Events were missed while the tab was hidden: show the queue as it is now.
    onResume: refreshSoon,
  });

  return (
    <div data-live={mode}>
      <div role="status" aria-live="polite" className="min-h-0">
        {fresh > 0 && (
          <button
            type="button"
            onClick={showNew}
            data-testid="new-tickets"
            className="mb-3 flex w-full items-center justify-center gap-2 rounded-md border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-sm text-indigo-800 hover:bg-indigo-100"
          >
            {fresh === 1 ? '1 new ticket' : `${fresh} new tickets`} · Show
            <kbd className="rounded border border-indigo-300 bg-white px-1 text-xs">.</kbd>
          </button>
        )}
      </div>
      {children}
      <p className="mt-2 text-right text-xs text-slate-400">
        {mode === 'live'
          ? 'Live: new tickets appear as they arrive.'
          : mode === 'polling'
            ? 'Live feed unavailable; checking every 5 s.'
            : 'Connecting…'}
      </p>
    </div>
  );
}
