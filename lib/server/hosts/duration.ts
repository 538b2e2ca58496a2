/**
 * Human durations for host timeouts: "90s", "15m", "2h", "7d", "1h 30m",
 * or a bare number meaning minutes. Stored and compared in milliseconds.
 */

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const s = text.trim().toLowerCase();
  if (/^\d{1,7}$/.test(s)) return Number(s) * UNIT_MS.m;
  const compact = s.replace(/\s+/g, '');
  if (!/^(\d{1,7}(?:sec|min|s|m|h|d))+$/.test(compact)) return null;
  let total = 0;
  for (const [, n, unit] of compact.matchAll(/(\d+)(sec|min|s|m|h|d)/g)) {
    total += Number(n) * UNIT_MS[unit];
  }
  return total;
}

/** "15m", "1d", "1h 30m", "45s": what the form shows for a stored value. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ');
}
