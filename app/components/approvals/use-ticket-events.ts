'use client';

import { useEffect, useRef } from 'react';

export type TicketEvent = { type: 'created' | 'decided' | 'expired'; ticketId: string };

type Handlers = {
  onEvent: (e: TicketEvent) => void;
  onOpen?: () => void;
  onError?: () => void;
  /** The tab became visible again after missing events while hidden. */
  onResume?: () => void;
};

/**
 * The inbox's live feed (/api/approvals/events), open only while the tab is
 * visible: browsers allow ~6 connections per host over HTTP/1.1, and a
 * reviewer with many tickets open in background tabs must not starve the
 * one they are using. A tab that comes back resumes and says so.
 */
export function useTicketEvents(handlers: Handlers) {
  const h = useRef(handlers);
  h.current = handlers;
  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      h.current.onError?.();
      return;
    }
    let source: EventSource | null = null;
    let missed = false;
    const open = () => {
      if (source) return;
      source = new EventSource('/api/approvals/events');
      for (const type of ['created', 'decided', 'expired'] as const) {
        source.addEventListener(type, (msg) => {
          try {
            const data = JSON.parse((msg as MessageEvent).data) as { ticketId: string };
            h.current.onEvent({ type, ticketId: data.ticketId });
          } catch {
            // A malformed event is ignored; the next refresh shows the truth.
          }
        });
      }
      source.onopen = () => h.current.onOpen?.();
      source.onerror = () => h.current.onError?.();
    };
    const close = () => {
      source?.close();
      source = null;
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') {
        close();
        missed = true;
      } else {
        open();
        if (missed) h.current.onResume?.();
        missed = false;
      }
    };
    if (document.visibilityState !== 'hidden') open();
    else missed = true;
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      close();
    };
  }, []);
}
