'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useTicketEvents } from './use-ticket-events';

/**
 * Keeps a pending ticket's page true (issue 14): when the ticket is decided
 * elsewhere or expires, the page is re-rendered at once, so the controls
 * give way to the outcome ("Rejected by Rita, 5 s ago") and the countdown
 * stops, without a reload. While the refresh is on its way, a notice says
 * what happened. Without the live feed, the deadline still disables the
 * controls (DecisionPanel) and the server refuses a late decision, saying
 * who won.
 */
export function TicketWatch({ ticketId }: { ticketId: string }) {
  const router = useRouter();
  const [settled, setSettled] = useState<'decided' | 'expired' | null>(null);
  useTicketEvents({
    onEvent: (e) => {
      if (e.ticketId !== ticketId) return;
      // `created` for a ticket already shown: the resolver handed it over (issue 6).
      if (e.type !== 'created') setSettled(e.type);
      router.refresh();
    },
    // Back from a background tab: the ticket may have been decided meanwhile.
    onResume: () => router.refresh(),
  });
  // A refresh that raced the commit can still show "pending": ask again.
  useEffect(() => {
    if (!settled) return;
    const id = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(id);
  }, [settled, router]);
  if (!settled) return null;
  return (
    <p
      role="status"
      data-testid="ticket-settled"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      {settled === 'decided'
        ? 'This ticket was just decided, by someone else or in another tab. Showing the outcome…'
        : 'This ticket just expired; the host was told "unresolved". Showing the outcome…'}
    </p>
  );
}
