'use client';

import { useState } from 'react';

/**
 * A context identity (§10) shortened to its head, with the whole value on
 * hover and a copy button: identities are long, and people compare them
 * by their first characters and paste them whole.
 */
export function Identity({
  value,
  label,
  full = false,
}: {
  value: string | null;
  label: string;
  /** Show the whole value (the record page), not its head. */
  full?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  if (!value) return <span className="text-slate-400">null</span>;
  const short = !full && value.length > 22 ? `${value.slice(0, 19)}…` : value;
  return (
    <span className={`inline-flex gap-1 ${full ? 'items-start' : 'items-center'}`}>
      <code
        className={`font-mono text-xs text-slate-700 ${full ? 'break-all' : 'whitespace-nowrap'}`}
        title={value}
        data-full={value}
      >
        {short}
      </code>
      <button
        type="button"
        className="shrink-0 whitespace-nowrap rounded px-1 text-xs text-indigo-700 hover:bg-indigo-50"
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
