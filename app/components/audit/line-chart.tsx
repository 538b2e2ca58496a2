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
  type ValueFormat,
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
  format: ValueFormat;
};

/** One line per series over the time buckets. Hand-written SVG. */
export function LineChart({ id, title, description, buckets, unit, series, format }: Props) {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)), format);
  const step = plotW / Math.max(buckets.length, 1);
  const x = (i: number) => PAD.left + step * (i + 0.5);
  const y = (v: number) => PAD.top + plotH * (1 - v / max);
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
        <YAxis max={max} format={format} />
        {series.map((s, si) => {
          const color = PALETTE[si % PALETTE.length];
          const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
          return (
            <g key={s.name}>
              <polyline points={points} fill="none" stroke={color} strokeWidth="1.75" />
              {buckets.length <= 48 &&
                s.values.map((v, i) => (
                  <circle key={buckets[i]} cx={x(i)} cy={y(v)} r="2" fill={color}>
                    <title>{`${buckets[i]}: ${s.name} ${v}`}</title>
                  </circle>
                ))}
            </g>
          );
        })}
        <XAxis buckets={buckets} unit={unit} />
      </svg>
      <Legend series={series} />
      <ChartTable caption={title} buckets={buckets} unit={unit} series={series} format={format} />
    </figure>
  );
}
