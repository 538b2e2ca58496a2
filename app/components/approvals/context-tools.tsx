'use client';

import { useEffect, useRef, useState } from 'react';

/**
 * Above a ticket's context (issue 14): search inside it, copy it, download
 * it. The search marks every node of the trees below (`[data-json-tree]`)
 * whose key or value contains the text, opens the branches that hold them
 * and scrolls to the first; the copy and the download fetch the exact
 * stored JSON, however much of it the page shows.
 */
export function ContextTools({ ticketId, scope }: { ticketId: string; scope: string }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<number | null>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const root = box.current?.closest(`[data-context-scope="${scope}"]`);
    if (!root) return;
    for (const el of root.querySelectorAll('[data-match]')) el.removeAttribute('data-match');
    const q = query.trim().toLowerCase();
    if (!q) {
      setFound(null);
      return;
    }
    const hits: Element[] = [];
    for (const tree of root.querySelectorAll('[data-json-tree]')) {
      for (const node of tree.querySelectorAll('[data-path]')) {
        // A leaf's own text, or a branch's summary line (its key): not its children's.
        const own =
          node.tagName === 'DETAILS' ? node.querySelector(':scope > summary') : (node as Element);
        if (own?.textContent?.toLowerCase().includes(q)) hits.push(node);
      }
    }
    for (const hit of hits) {
      hit.setAttribute('data-match', '');
      for (let p = hit.parentElement; p && p !== root; p = p.parentElement)
        if (p.tagName === 'DETAILS') (p as HTMLDetailsElement).open = true;
    }
    setFound(hits.length);
    hits[0]?.scrollIntoView({ block: 'nearest' });
  }, [query, scope]);

  const url = `/api/approvals/${ticketId}/context`;
  return (
    <div ref={box} className="mb-3 flex flex-wrap items-center gap-2">
      <label className="flex min-w-0 flex-1 items-center gap-2 text-sm">
        <span className="sr-only">Search the context</span>
        <input
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Search keys and values"
          className="w-full min-w-0 rounded-md border border-slate-300 px-2 py-1 text-sm"
        />
      </label>
      <span aria-live="polite" className="text-xs text-slate-600" data-testid="context-matches">
        {found === null ? '' : found === 1 ? '1 match' : `${found} matches`}
      </span>
      <button
        type="button"
        className="rounded border border-slate-300 bg-white px-2 py-1 text-xs text-slate-700 hover:bg-slate-50"
        onClick={async () => {
          try {
            const res = await fetch(url, { cache: 'no-store' });
            if (!res.ok) throw new Error(String(res.status));
            await navigator.clipboard.writeText(await res.text());
            setCopied('yes');
          } catch {
            setCopied('failed');
          }
          setTimeout(() => setCopied(null), 2000);
        }}
      >
        <span aria-live="polite">
          {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy JSON'}
        </span>
      </button>
      <a
        href={`${url}?download=1`}
        download
        className="rounded border border-slate-300 bg-white px-2 py-1 text-xs text-slate-700 hover:bg-slate-50"
      >
        Download JSON
      </a>
    </div>
  );
}
