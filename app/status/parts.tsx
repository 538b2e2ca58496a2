import type { ReactNode } from 'react';

/** The small pieces /status is built from. */

export type Tone = 'ok' | 'warn' | 'bad';
const TONE: Record<Tone, string> = {
  ok: 'bg-emerald-100 text-emerald-800',
  warn: 'bg-amber-100 text-amber-800',
  bad: 'bg-red-100 text-red-800',
};

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONE[tone]}`}>
      {children}
    </span>
  );
}

export function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-4 border-b border-gray-100 py-2 last:border-0">
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="text-right text-sm text-gray-900">{children}</dd>
    </div>
  );
}

export function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="rounded-lg border border-gray-200 bg-white p-4">
      <h2 className="mb-2 text-sm font-semibold text-gray-700">{title}</h2>
      <dl>{children}</dl>
    </section>
  );
}

export function When({ at, now }: { at: Date; now: number }) {
  const s = Math.round((now - at.getTime()) / 1000);
  const rel =
    s < 60
      ? `${s} s ago`
      : s < 3600
        ? `${Math.round(s / 60)} min ago`
        : `${Math.round(s / 3600)} h ago`;
  return (
    <time dateTime={at.toISOString()} title={at.toISOString()}>
      {rel}{' '}
      <span className="text-gray-400">({at.toISOString().replace('T', ' ').slice(0, 19)} UTC)</span>
    </time>
  );
}
