'use client';

import { useState } from 'react';

/**
 * A context identity (§10) shortened to its head, with the whole value on
 * hover and a copy button: identities are long, and people compare them
 * by their first characters and paste them whole.
 */
export function Identity({ value, label }: { value: string | null; label: string }) {
  const [copied, setCopied] = useState(false);
  if (!value) return <span className="text-slate-400">null</span>;
  const short = value.length > 22 ? `${value.slice(0, 19)}…` : value;
  return (
    <span className="inline-flex items-center gap-1">
      <code className="font-mono text-xs text-slate-700" title={value} data-full={value}>
        {short}
      </code>
      <button
        type="button"
        className="rounded px-1 text-xs text-indigo-700 hover:bg-indigo-50"
        aria-label={`Copy ${label}`}
        onClick={() => {
          navigator.clipboard?.writeText(value).then(
            () => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            },
            () => {},
          );
        }}
      >
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
