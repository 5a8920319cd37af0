'use client';
/**
 * The run timeline: a waterfall with one row per member (waiting, working or parked, finished;
 * retries, where it failed, re-opens as lines across) and its waves (messages finished per time
 * bucket, drawn inside the bar), above a throughput chart. Everything comes aggregated from
 * runs.timeline; polled each second while the run goes.
 */
import { useQuery } from '@tanstack/react-query';
import { formatDuration } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { ThroughputChart } from './throughput-chart';
import { offsetLabel, plural, rateSeries, ticks } from './timeline-scale';

export function RunTimeline({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const tl = useQuery(trpc.runs.timeline.queryOptions({ runId }, { refetchInterval: live ? 1000 : false }));
  if (tl.isError) return <p role="alert" className="text-sm text-red-700">{errorMessage(tl.error)}</p>;
  if (!tl.data) return <p className="text-sm text-slate-500">Loading the timeline…</p>;
  const d = tl.data;
  const end = Math.max(d.endedAt ?? d.now, 0.001);
  const pct = (t: number) => `${Math.min(100, Math.max(0, (t / end) * 100))}%`;
  const width = (a: number, b: number) => `${Math.max(0.4, ((Math.min(b, end) - Math.max(a, 0)) / end) * 100)}%`;
  const lastBucket = Math.floor(end / d.bucketSeconds);
  const points = rateSeries(d.throughput, d.bucketSeconds, d.endedAt === null ? lastBucket : Math.max(0, ...d.throughput.map((c) => c.bucket)));
  const wavesOf = (member: string) => d.waves.filter((w) => w.member === member);
  return (
    <section className="space-y-3" aria-label="timeline" data-testid="run-timeline" data-members={d.members.length}>
      <div className="flex items-baseline gap-3">
        <h2 className="text-sm font-semibold">Timeline</h2>
        <span className="text-xs text-slate-500">{d.endedAt === null ? `${offsetLabel(end)} so far` : `${offsetLabel(end)} from creation to end`}</span>
      </div>
      <div className="rounded-lg border border-slate-200 bg-white p-3">
        <div className="grid grid-cols-[minmax(8rem,14rem)_1fr] gap-x-3 text-xs">
          <div />
          <div className="relative h-5 border-b border-slate-200 text-slate-500" aria-hidden>
            {ticks(end).map((t) => (
              <span key={t} className="absolute -translate-x-1/2 tabular-nums" style={{ left: pct(t) }}>{offsetLabel(t)}</span>
            ))}
          </div>
          {d.members.map((m) => {
            const start = m.startedAt ?? m.firstAt;
            const stop = m.endedAt ?? (d.endedAt ?? d.now);
            const waves = wavesOf(m.member);
            const peak = Math.max(1, ...waves.map((w) => w.done + w.failed));
            const failed = m.dead + m.lost > 0;
            const tone = failed ? 'bg-red-100 border-red-400' : m.parks ? 'bg-violet-100 border-violet-400' : 'bg-emerald-100 border-emerald-400';
            const title = [
              `${m.member}: ${plural(m.messages, 'message')}, ${m.done.toLocaleString()} done`,
              `waiting from ${offsetLabel(m.firstAt)}, ${m.startedAt === null ? 'not started' : `started ${offsetLabel(m.startedAt)}`}, ${m.endedAt === null ? 'still going' : `last finished ${offsetLabel(m.endedAt)}`}`,
              m.retries ? plural(m.retries, 'retry', 'retries') : '',
              m.parks ? `parked ${formatDuration(m.parkedSeconds)} in total` : '',
            ].filter(Boolean).join('\n');
            return (
              <div key={m.member} className="contents" data-testid={`timeline-row-${m.member}`} data-messages={m.messages} data-retries={m.retries} data-failed={failed}>
                <div className="flex flex-wrap items-baseline gap-x-2 border-b border-slate-50 py-1.5">
                  <span className="font-mono font-medium text-slate-800">{m.member}</span>
                  <span className="text-slate-500">{plural(m.messages, 'message')}</span>
                  {m.retries > 0 && <span className="text-amber-700" data-testid="timeline-retries">{plural(m.retries, 'retry', 'retries')}</span>}
                  {m.parks && m.parkedSeconds > 0 && <span className="text-violet-700" data-testid="timeline-parked">parked {formatDuration(m.parkedSeconds)}</span>}
                  {failed && <span className="font-medium text-red-700">{m.dead + m.lost} failed</span>}
                </div>
                <div className="relative h-8 border-b border-slate-50" title={title}>
                  {m.startedAt !== null && m.startedAt > m.firstAt && (
                    <div className="absolute top-3 h-2 rounded-l bg-slate-200" style={{ left: pct(m.firstAt), width: width(m.firstAt, m.startedAt) }} data-testid="timeline-waiting" />
                  )}
                  <div className={`absolute top-1 h-6 overflow-hidden rounded border ${tone} ${m.endedAt === null ? 'border-dashed' : ''}`}
                    style={{ left: pct(start), width: width(start, stop) }} data-testid="timeline-bar">
                    {waves.map((w) => (
                      <span key={w.bucket} className={`absolute bottom-0 ${w.failed ? 'bg-red-500/70' : 'bg-emerald-600/60'}`}
                        style={{ left: `${((w.bucket * d.bucketSeconds - start) / Math.max(stop - start, d.bucketSeconds)) * 100}%`,
                          width: `${Math.max(2, (d.bucketSeconds / Math.max(stop - start, d.bucketSeconds)) * 100)}%`, height: `${((w.done + w.failed) / peak) * 100}%` }} />
                    ))}
                  </div>
                  {m.failedAt !== null && (
                    <span className="absolute top-0 h-8 w-0.5 bg-red-600" style={{ left: pct(m.failedAt) }} data-testid="timeline-failed-at"
                      title={`first failure at ${offsetLabel(m.failedAt)}${m.error ? `: ${m.error.split('\n')[0]}` : ''}`} />
                  )}
                  {d.causeMember === m.member && <span className="absolute -top-0.5 right-0 text-[10px] font-semibold text-red-700">the run failed here</span>}
                </div>
              </div>
            );
          })}
          {d.reopens.map((r) => (
            <div key={r.attempt} className="contents">
              <div className="py-1 text-slate-500">re-open (attempt {r.attempt})</div>
              <div className="relative h-5"><span className="absolute top-0 h-5 border-l-2 border-dashed border-sky-600" style={{ left: pct(r.at) }} data-testid="timeline-reopen" /></div>
            </div>
          ))}
        </div>
        {d.members.length === 0 && <p className="text-sm text-slate-500">No messages yet.</p>}
      </div>
      <ThroughputChart points={points} bucketSeconds={d.bucketSeconds} live={live} />
    </section>
  );
}
