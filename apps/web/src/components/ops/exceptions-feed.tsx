'use client';
/**
 * The exceptions feed: failed and stalled runs grouped per mesh and cause over a window (today,
 * 7 days or a custom range): count, first and last seen, severity, who acts, three sample runs and
 * a trend sparkline. Grouped by the database in one query; refetched when the engine says a run failed.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { inputClass } from '@/components/ui/button';
import { formatCount, formatDateTime } from '@/components/ui/format';
import { SeverityBadge } from '@/components/ui/severity-badge';
import { Sparkline } from '@/components/ui/sparkline';
import { shortId } from '@/components/runs/run-status';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

type Window = 'today' | '7d' | 'custom';

function startOfToday(): Date {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d;
}

export function ExceptionsFeed() {
  const trpc = useTRPC();
  const [win, setWin] = useState<Window>('today');
  const [customFrom, setCustomFrom] = useState('');
  const [customTo, setCustomTo] = useState('');
  const range = useMemo(() => {
    if (win === 'today') return { from: startOfToday(), to: new Date(startOfToday().getTime() + 86_400_000) };
    if (win === '7d') {
      const to = new Date(startOfToday().getTime() + 86_400_000);
      return { from: new Date(to.getTime() - 7 * 86_400_000), to };
    }
    if (!customFrom || !customTo) return null;
    return { from: new Date(customFrom), to: new Date(customTo) };
  }, [win, customFrom, customTo]);
  const feed = useQuery(trpc.exceptions.feed.queryOptions(range ?? { from: new Date(0), to: new Date(1) }, { enabled: range !== null, placeholderData: keepPreviousData }));
  const total = feed.data?.groups.reduce((n, g) => n + g.count, 0) ?? 0;
  return (
    <section data-testid="exceptions-feed">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Exceptions</h1>
          <p className="text-sm text-slate-600">Failed and stalled runs, one group per mesh and cause.</p>
        </div>
        <div className="flex flex-wrap items-end gap-3 text-sm">
          <label>
            <span className="mb-0.5 block text-xs text-slate-600">Window</span>
            <select className={`${inputClass} w-36`} value={win} onChange={(e) => setWin(e.target.value as Window)} data-testid="feed-window">
              <option value="today">Today</option>
              <option value="7d">Last 7 days</option>
              <option value="custom">Custom</option>
            </select>
          </label>
          {win === 'custom' && (
            <>
              <label>
                <span className="mb-0.5 block text-xs text-slate-600">From</span>
                <input type="datetime-local" className={`${inputClass} w-52`} value={customFrom} onChange={(e) => setCustomFrom(e.target.value)} data-testid="feed-from" />
              </label>
              <label>
                <span className="mb-0.5 block text-xs text-slate-600">To</span>
                <input type="datetime-local" className={`${inputClass} w-52`} value={customTo} onChange={(e) => setCustomTo(e.target.value)} data-testid="feed-to" />
              </label>
            </>
          )}
        </div>
      </div>
      {win === 'custom' && !range && <p className="text-sm text-slate-500">Choose a start and an end.</p>}
      {feed.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(feed.error)}</p>}
      {feed.data && (
        <p className="mb-3 text-sm text-slate-600" data-testid="feed-total">
          {formatCount(total)} {total === 1 ? 'run' : 'runs'} failed or stalled in {feed.data.groups.length} {feed.data.groups.length === 1 ? 'group' : 'groups'}
          {' '}(trend per {feed.data.bucket}).
        </p>
      )}
      {feed.data?.groups.length === 0 && <p className="text-sm text-slate-500" data-testid="feed-empty">Nothing failed in this window.</p>}
      <ul className="space-y-3">
        {feed.data?.groups.map((g) => (
          <li key={`${g.meshId}:${g.cause}`} className="rounded-lg border border-slate-200 bg-white p-4" data-testid="feed-group" data-mesh={g.meshName} data-cause={g.cause} data-count={g.count}>
            <div className="flex flex-wrap items-start justify-between gap-4">
              <div className="min-w-0 flex-1 space-y-1">
                <div className="flex items-center gap-2">
                  <SeverityBadge severity={g.severity} />
                  <span className="font-mono text-xs text-slate-600">{g.cause}</span>
                  <span className="text-slate-400">·</span>
                  <Link href={`/meshes/${g.meshId}`} className="font-medium hover:underline">{g.meshName}</Link>
                </div>
                <p className="text-sm text-slate-800" data-testid="feed-sentence">{g.sentence}</p>
                <p className="text-xs text-slate-500">
                  Who acts: {g.whoActs}. First seen {formatDateTime(g.firstSeen)}, last seen {formatDateTime(g.lastSeen)}.
                </p>
              </div>
              <div className="flex items-center gap-4">
                <Sparkline values={g.trend} label={`runs per ${feed.data.bucket}`} />
                <span className="text-2xl font-semibold tabular-nums" data-testid="feed-count">{formatCount(g.count)}</span>
              </div>
            </div>
            <ul className="mt-2 space-y-0.5 border-t border-slate-100 pt-2 text-sm">
              {g.samples.map((s) => (
                <li key={s.id} className="flex gap-2" data-testid="feed-sample">
                  <Link href={`/runs/${s.id}`} className="font-mono text-xs text-sky-700 hover:underline">{shortId(s.id)}</Link>
                  <span className="truncate text-slate-600" title={s.sentence ?? ''}>{s.inputName ? `${s.inputName}: ` : ''}{s.sentence}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
