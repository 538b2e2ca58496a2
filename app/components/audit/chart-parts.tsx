/**
 * Shared pieces of the hand-written SVG charts: geometry, axis ticks,
 * labels, the legend and the table fallback (the same numbers as text,
 * for screen readers and for people who want exact values).
 */

export const PALETTE = ['#4f46e5', '#e11d48', '#0891b2', '#d97706', '#7c3aed', '#64748b'];

export type ChartSeries = { name: string; values: number[] };
export type ValueFormat = 'count' | 'percent';

export const W = 640;
export const H = 180;
export const PAD = { left: 44, right: 8, top: 8, bottom: 22 };
export const plotW = W - PAD.left - PAD.right;
export const plotH = H - PAD.top - PAD.bottom;

/**
 * A round axis maximum at or above `max`. Counts use even steps so that
 * the middle gridline is a whole number too (0, 20, 40; never 2.5).
 */
export function niceMax(max: number, format: ValueFormat): number {
  if (format === 'percent') {
    if (max <= 0) return 0.01;
    const pow = 10 ** Math.floor(Math.log10(max));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= max) return m * pow;
    return 10 * pow;
  }
  if (max <= 2) return 2;
  const pow = 10 ** Math.floor(Math.log10(max));
  for (const m of [2, 4, 6, 8, 10]) if (m * pow >= max) return m * pow;
  return 10 * pow;
}

export function formatValue(v: number, format: ValueFormat): string {
  if (format === 'percent') {
    const pct = v * 100;
    return `${pct < 10 && pct !== 0 ? pct.toFixed(1) : Math.round(pct)}%`;
  }
  return v.toLocaleString('en-US');
}

export function bucketLabel(isoStart: string, unit: 'hour' | 'day'): string {
  return unit === 'hour' ? `${isoStart.slice(11, 13)}:00` : isoStart.slice(5, 10);
}

export function YAxis({ max, format }: { max: number; format: ValueFormat }) {
  return (
    <g>
      {[0, 0.5, 1].map((f) => {
        const y = PAD.top + plotH * (1 - f);
        return (
          <g key={f}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} stroke="#e2e8f0" />
            <text x={PAD.left - 6} y={y + 3} textAnchor="end" fontSize="10" fill="#64748b">
              {formatValue(max * f, format)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

export function XAxis({ buckets, unit }: { buckets: string[]; unit: 'hour' | 'day' }) {
  const every = Math.max(1, Math.ceil(buckets.length / 8));
  const step = plotW / Math.max(buckets.length, 1);
  return (
    <g>
      {buckets.map((b, i) =>
        i % every === 0 ? (
          <text
            key={b}
            x={PAD.left + step * (i + 0.5)}
            y={H - 6}
            textAnchor="middle"
            fontSize="10"
            fill="#64748b"
          >
            {bucketLabel(b, unit)}
          </text>
        ) : null,
      )}
    </g>
  );
}

export function Legend({ series }: { series: ChartSeries[] }) {
  if (series.length < 2) return null;
  return (
    <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-600" aria-hidden="true">
      {series.map((s, i) => (
        <li key={s.name} className="inline-flex items-center gap-1">
          <span
            className="size-2.5 rounded-sm"
            style={{ background: PALETTE[i % PALETTE.length] }}
          />
          {s.name}
        </li>
      ))}
    </ul>
  );
}

/** The chart's numbers as a table, folded away under the chart. */
export function ChartTable({
  caption,
  buckets,
  unit,
  series,
  format,
}: {
  caption: string;
  buckets: string[];
  unit: 'hour' | 'day';
  series: ChartSeries[];
  format: ValueFormat;
}) {
  return (
    <details className="mt-1 text-xs text-slate-600">
      <summary className="cursor-pointer select-none text-slate-500">Show as table</summary>
      <div className="mt-1 max-h-56 overflow-auto">
        <table className="min-w-full">
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr>
              <th scope="col" className="px-2 py-1 text-left font-medium">
                {unit === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}
              </th>
              {series.map((s) => (
                <th key={s.name} scope="col" className="px-2 py-1 text-right font-medium">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {buckets.map((b, i) => (
              <tr key={b} className="border-t border-slate-100">
                <th scope="row" className="px-2 py-0.5 text-left font-normal">
                  {unit === 'hour' ? `${b.slice(0, 10)} ${b.slice(11, 16)}` : b.slice(0, 10)}
                </th>
                {series.map((s) => (
                  <td key={s.name} className="px-2 py-0.5 text-right tabular-nums">
                    {formatValue(s.values[i] ?? 0, format)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
