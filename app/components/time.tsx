'use client';

import { useEffect, useState } from 'react';
import { formatAbsolute, formatRelative } from './time-format';

/**
 * A moment shown relative ("3 h ago", "in 4 min") with the absolute UTC
 * time as tooltip and machine-readable `dateTime`. Ticks every 30 s.
 */
export function Time({ value, now }: { value: Date | string; now?: Date | string }) {
  const date = typeof value === 'string' ? new Date(value) : value;
  // The server's "now" is used for the first render so server and client agree.
  const [current, setCurrent] = useState(() => (now ? new Date(now) : new Date()));
  useEffect(() => {
    setCurrent(new Date());
    const id = setInterval(() => setCurrent(new Date()), 30_000);
    return () => clearInterval(id);
  }, []);
  if (Number.isNaN(date.getTime())) return <span>—</span>;
  const absolute = formatAbsolute(date);
  return (
    <time dateTime={date.toISOString()} title={absolute} suppressHydrationWarning>
      {formatRelative(date, current)}
    </time>
  );
}
