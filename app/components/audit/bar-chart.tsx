import {
  type ChartSeries,
  ChartTable,
  H,
  Legend,
  niceMax,
  PAD,
  PALETTE,
  plotH,
  plotW,
  W,
  XAxis,
  YAxis,
} from './chart-parts';

type Props = {
  id: string;
  title: string;
  description: string;
  buckets: string[];
  unit: 'hour' | 'day';
  series: ChartSeries[];
};

/** Stacked bars per time bucket (one series = plain bars). Hand-written SVG. */
export function BarChart({ id, title, description, buckets, unit, series }: Props) {
  const totals = buckets.map((_, i) => series.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals), 'count');
  const step = plotW / Math.max(buckets.length, 1);
  const barW = Math.max(1, step * 0.7);
  return (
    <figure className="min-w-0">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        className="h-auto w-full"
        data-testid={`chart-${id}`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <YAxis max={max} format="count" />
        {buckets.map((b, i) => {
          let y = PAD.top + plotH;
          return (
            <g key={b}>
              {series.map((s, si) => {
                const v = s.values[i] ?? 0;
                if (v <= 0) return null;
                const h = (v / max) * plotH;
                y -= h;
                return (
                  <rect
                    key={s.name}
                    x={PAD.left + step * i + (step - barW) / 2}
                    y={y}
                    width={barW}
                    height={h}
                    fill={PALETTE[si % PALETTE.length]}
                  >
                    <title>{`${b}: ${s.name} ${v}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
        <XAxis buckets={buckets} unit={unit} />
      </svg>
      <Legend series={series} />
      <ChartTable caption={title} buckets={buckets} unit={unit} series={series} format="count" />
    </figure>
  );
}
