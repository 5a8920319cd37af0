'use client';
/** Every run, newest first: mesh, version, status, cause, timing and message counts; filter and page. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { inputClass } from '@/components/ui/button';
import { formatCount, formatDateTime, formatDuration } from '@/components/ui/format';
import { Pager } from '@/components/ui/pager';
import { StatusBadge } from '@/components/ui/status-badge';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { ENDED, RUN_STATUS_OPTIONS, shortId } from './run-status';

const PAGE = 25;

export function RunList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<(typeof RUN_STATUS_OPTIONS)[number] | ''>('');
  const [page, setPage] = useState(0);
  const runs = useQuery(
    trpc.runs.list.queryOptions(
      { ...(status ? { status } : {}), limit: PAGE, offset: page * PAGE },
      {
        placeholderData: keepPreviousData,
        refetchInterval: (q) => (q.state.data?.items.some((r) => !ENDED.has(r.status)) ? 2000 : 10_000),
      },
    ),
  );
  return (
    <section data-testid="run-list">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Runs</h1>
          <p className="text-sm text-slate-600">One input through one mesh version, with every message accounted for.</p>
        </div>
        <label className="text-sm">
          <span className="mr-2 text-slate-600">Status</span>
          <select className={`${inputClass} inline-block w-40`} value={status} data-testid="runs-filter-status"
            onChange={(e) => { setStatus(e.target.value as typeof status); setPage(0); }}>
            <option value="">All</option>
            {RUN_STATUS_OPTIONS.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      {runs.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(runs.error)}</p>}
      {runs.isPending && <p className="text-sm text-slate-500">Loading runs…</p>}
      {runs.data?.total === 0 && (
        <p className="text-sm text-slate-500" data-testid="run-list-empty">
          {status ? `No ${status} runs.` : 'No runs yet. Open a mesh, choose a document and start a run.'}
        </p>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-3 py-2 font-medium">Run</th>
                <th className="px-3 py-2 font-medium">Mesh</th>
                <th className="px-3 py-2 font-medium">Status</th>
                <th className="px-3 py-2 font-medium">Cause</th>
                <th className="px-3 py-2 font-medium">Started</th>
                <th className="px-3 py-2 text-right font-medium">Duration</th>
                <th className="px-3 py-2 text-right font-medium" title="messages published">Published</th>
                <th className="px-3 py-2 text-right font-medium">Done</th>
                <th className="px-3 py-2 text-right font-medium" title="dead-lettered">Dead</th>
                <th className="px-3 py-2 text-right font-medium">Lost</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((r) => (
                <tr key={r.id} className="border-b border-slate-100 last:border-0 hover:bg-slate-50" data-testid={`run-row-${r.id}`} data-status={r.status}>
                  <td className="px-3 py-2 font-mono text-xs">
                    <Link href={`/runs/${r.id}`} className="text-sky-700 hover:underline" data-testid="run-link">{shortId(r.id)}</Link>
                    {r.inputName && <span className="block max-w-40 truncate font-sans text-slate-500" title={r.inputName}>{r.inputName}</span>}
                  </td>
                  <td className="px-3 py-2">
                    <Link href={`/meshes/${r.meshId}`} className="hover:underline">{r.meshName}</Link>
                    <span className="ml-1 text-xs text-slate-500">v{r.meshVersion}</span>
                  </td>
                  <td className="px-3 py-2"><StatusBadge status={r.status} /></td>
                  <td className="max-w-xs px-3 py-2 text-slate-700" title={r.causeMessage ?? ''}>
                    {r.cause ? <span className="line-clamp-2">{r.causeMessage ?? r.cause}</span> : <span className="text-slate-400">—</span>}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 text-slate-600">{formatDateTime(r.startedAt ?? r.createdAt)}</td>
                  <td className="whitespace-nowrap px-3 py-2 text-right tabular-nums">{formatDuration(r.seconds)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatCount(r.counts.published)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatCount(r.counts.done)}</td>
                  <td className={`px-3 py-2 text-right tabular-nums ${r.counts.deadLettered ? 'font-semibold text-red-700' : ''}`}>{formatCount(r.counts.deadLettered)}</td>
                  <td className={`px-3 py-2 text-right tabular-nums ${r.counts.lost ? 'font-semibold text-red-800' : ''}`}>{formatCount(r.counts.lost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {runs.data && <Pager page={page} size={PAGE} total={runs.data.total} onPage={setPage} testId="runs-pager" />}
    </section>
  );
}
