'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/** True when a key press belongs to a field, not to the page's shortcuts. */
export function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  return (
    t.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName) ||
    e.metaKey ||
    e.ctrlKey ||
    e.altKey
  );
}

/**
 * The queue's keyboard paths: j / k move between rows, Enter or o opens the
 * selected ticket, / jumps to the session search, . shows new tickets.
 * Rows are `[data-ticket-row]` elements with a `data-href`.
 */
export function useQueueKeys(showNew: () => void) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e)) return;
      const rows = Array.from(document.querySelectorAll<HTMLElement>('[data-ticket-row]'));
      const current = rows.findIndex((r) => r.dataset.selected === 'true');
      const select = (i: number) => {
        if (rows.length === 0) return;
        const next = Math.max(0, Math.min(rows.length - 1, i));
        for (const r of rows) delete r.dataset.selected;
        rows[next].dataset.selected = 'true';
        rows[next].scrollIntoView({ block: 'nearest' });
        rows[next].querySelector<HTMLElement>('a')?.focus({ preventScroll: true });
      };
      if (e.key === 'j') select(current + 1);
      else if (e.key === 'k') select(current < 0 ? 0 : current - 1);
      else if ((e.key === 'Enter' || e.key === 'o') && current >= 0) {
        const href = rows[current].dataset.href;
        if (href && e.key === 'o') router.push(href);
        else return; // Enter on the focused link navigates by itself.
      } else if (e.key === '/') {
        document.querySelector<HTMLInputElement>('#filter-session')?.focus();
      } else if (e.key === '.') showNew();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router, showNew]);
}
