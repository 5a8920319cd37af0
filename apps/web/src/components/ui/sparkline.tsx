/** A trend as an inline SVG polyline with a dot on the last value; `values` oldest first. */
export function Sparkline({ values, width = 120, height = 28, label }: { values: readonly number[]; width?: number; height?: number; label: string }) {
  if (values.length === 0) return null;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const points = values.map((v, i) => [2 + i * step, height - 2 - (v / max) * (height - 4)] as const);
  const last = points[points.length - 1];
  return (
    <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} data-testid="sparkline" data-values={values.join(',')}>
      <polyline fill="none" stroke="currentColor" strokeWidth={1.5} className="text-red-500" points={points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')} />
      {last && <circle cx={last[0]} cy={last[1]} r={2} className="fill-red-600" />}
    </svg>
  );
}
