'use client';

import { useEffect, useState } from 'react';
import { formatAbsolute } from '../time-format';

/**
 * A pending ticket is flagged amber in its last 5 minutes and red in its
 * last minute, but never for more than its last quarter (amber) or tenth
 * (red) of its lifetime: a 5-minute ticket is not urgent from birth.
 */
export const URGENT_MS = 5 * 60_000;
const CRITICAL_MS = 60_000;

export function urgency(left: number, lifetime: number | null): 'calm' | 'urgent' | 'critical' {
  const span = lifetime !== null && lifetime > 0 ? lifetime : Number.POSITIVE_INFINITY;
  if (left <= Math.min(CRITICAL_MS, span / 10)) return 'critical';
  if (left <= Math.min(URGENT_MS, span / 4)) return 'urgent';
  return 'calm';
}

/** "4:05", "1 h 12 min", "2 d 3 h": precise near the end, calm far from it. */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return 'deadline passed';
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  const h = Math.floor(s / 3600);
  if (h < 24) return `${h} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * A pending ticket's live countdown to its deadline, ticking every second,
 * amber in its last minutes and red in its last one. The absolute deadline
 * is the tooltip. The server's `now` makes the first render agree.
 */
export function Countdown({
  deadline,
  now,
  created,
}: {
  deadline: string;
  now: string;
  /** When the ticket was created: urgency is relative to its lifetime. */
  created?: string;
}) {
  const end = new Date(deadline).getTime();
  const lifetime = created ? end - new Date(created).getTime() : null;
  const [current, setCurrent] = useState(() => new Date(now).getTime());
  useEffect(() => {
    setCurrent(Date.now());
    const id = setInterval(() => {
      const t = Date.now();
      setCurrent(t);
      // At the deadline it stops: "deadline passed" does not change any more.
      if (t >= end) clearInterval(id);
    }, 1000);
    return () => clearInterval(id);
  }, [end]);
  const left = end - current;
  const level = urgency(left, lifetime);
  const style = {
    calm: 'text-slate-600',
    urgent: 'bg-amber-50 text-amber-800 ring-1 ring-inset ring-amber-300',
    critical: 'bg-red-50 text-red-800 ring-1 ring-inset ring-red-300',
  }[level];
  return (
    <time
      dateTime={new Date(end).toISOString()}
      title={`Deadline ${formatAbsolute(new Date(end))}`}
      data-testid="countdown"
      data-level={level}
      suppressHydrationWarning
      className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 font-mono text-xs tabular-nums ${style}`}
    >
      {level !== 'calm' && <span aria-hidden className="size-1.5 rounded-full bg-current" />}
      <span className="sr-only">Time left: </span>
      {formatRemaining(left)}
    </time>
  );
}
