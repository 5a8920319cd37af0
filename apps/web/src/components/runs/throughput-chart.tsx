'use client';
/** Messages finished per second over the run (done in green, dead-lettered or lost in red), per time bucket. */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { offsetLabel, type RatePoint } from './timeline-scale';

export function ThroughputChart({ points, bucketSeconds, live }: { points: readonly RatePoint[]; bucketSeconds: number; live: boolean }) {
  const peak = Math.max(0, ...points.map((p) => p.done + p.failed));
  return (
    <figure className="space-y-1" data-testid="run-throughput" data-points={points.length} data-peak={peak}>
      <figcaption className="flex items-baseline gap-2 text-xs text-slate-600">
        <span className="font-medium text-slate-700">Messages done per second</span>
        <span>({offsetLabel(bucketSeconds)} buckets, peak {peak.toLocaleString()}/s)</span>
        {live && <span className="rounded bg-sky-100 px-1.5 text-sky-800" data-testid="run-throughput-live">live</span>}
      </figcaption>
      <div className="h-40 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={[...points]} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="t" tickFormatter={(t: number) => offsetLabel(t)} tick={{ fontSize: 11, fill: '#475569' }} minTickGap={24} />
            <YAxis width={44} tick={{ fontSize: 11, fill: '#475569' }} allowDecimals={false} />
            <Tooltip formatter={(v, name) => [`${Number(v).toLocaleString()}/s`, name === 'done' ? 'done' : 'dead or lost']} labelFormatter={(t) => `at ${offsetLabel(Number(t))}`} />
            <Bar dataKey="done" stackId="r" fill="#10b981" isAnimationActive={false} />
            <Bar dataKey="failed" stackId="r" fill="#dc2626" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
