'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useTicketEvents } from './use-ticket-events';

/**
 * Tells a reviewer at once when the ticket they are looking at is decided
 * elsewhere or expires, instead of letting them compose a decision that
 * can no longer count. Silent when the live feed is unavailable: the
 * server still refuses a late decision and says who won.
 */
export function TicketWatch({ ticketId }: { ticketId: string }) {
  const router = useRouter();
  const [settled, setSettled] = useState<'decided' | 'expired' | null>(null);
  useTicketEvents({
    onEvent: (e) => {
      if (e.ticketId !== ticketId) return;
      // `created` for a ticket already shown: the resolver handed it over (issue 6).
      if (e.type === 'created') router.refresh();
      else setSettled(e.type);
    },
    // Back from a background tab: the ticket may have been decided meanwhile.
    onResume: () => router.refresh(),
  });
  if (!settled) return null;
  return (
    <div
      role="alert"
      data-testid="ticket-settled"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      {settled === 'decided'
        ? 'This ticket was just decided, by someone else or in another tab.'
        : 'This ticket just expired; the host was told "unresolved".'}{' '}
      <button type="button" onClick={() => router.refresh()} className="font-medium underline">
        Show the outcome
      </button>
    </div>
  );
}
