/**
 * Relative and absolute renderings of a moment, shared by server and
 * client so that both render the same text (no hydration mismatch).
 */

const UNITS: [limitSeconds: number, divisor: number, unit: string][] = [
  [60, 1, 's'],
  [3600, 60, 'min'],
  [86400, 3600, 'h'],
  [86400 * 30, 86400, 'd'],
  [86400 * 365, 86400 * 30, 'mo'],
  [Number.POSITIVE_INFINITY, 86400 * 365, 'y'],
];

/** "in 4 min", "3 h ago", "just now". */
export function formatRelative(date: Date, now: Date): string {
  const diffS = Math.round((date.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(diffS);
  if (abs < 10) return 'just now';
  for (const [limit, divisor, unit] of UNITS) {
    if (abs < limit) {
      const n = Math.floor(abs / divisor);
      return diffS > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
    }
  }
  return date.toISOString();
}

/** "2026-12-02 09:41:07 UTC": unambiguous, the same on every machine. */
export function formatAbsolute(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
