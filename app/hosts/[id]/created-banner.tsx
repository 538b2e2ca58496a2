'use client';

import { useEffect } from 'react';

/**
 * "Host registered" once (issue 14): shown after the redirect from the form,
 * and the `created` parameter is dropped from the address at once, so a
 * reload or a bookmark does not show it again.
 */
export function CreatedBanner() {
  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has('created')) return;
    url.searchParams.delete('created');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  }, []);
  return (
    <p
      role="status"
      className="mb-4 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-800"
    >
      Host registered. Create an API key for it below.
    </p>
  );
}
