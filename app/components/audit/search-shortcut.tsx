'use client';

import { useEffect } from 'react';

/** "/" jumps to the session id field, as in most search tools (not while typing elsewhere). */
export function SearchShortcut({ targetId }: { targetId: string }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.metaKey || e.ctrlKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      const field = document.getElementById(targetId) as HTMLInputElement | null;
      if (!field) return;
      e.preventDefault();
      field.focus();
      field.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [targetId]);
  return null;
}
