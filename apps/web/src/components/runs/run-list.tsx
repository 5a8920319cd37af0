'use client';
/**
 * The Runs tab: filters (mesh, status, cause, severity, time range), search by run id or input name,
 * sortable columns, server-side pages, and bulk re-open of the selected failed or stalled runs.
 * Refetches when the engine says something moved (components/live) and while runs are going.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { CAUSES } from '@trellis/mesh/causes';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatCount, formatDateTime, formatDuration } from '@/components/ui/format';
import { Pager } from '@/components/ui/pager';
import { SeverityBadge } from '@/components/ui/severity-badge';
import { StatusBadge } from '@/components/ui/status-badge';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { ReopenDialog, type ReopenDone } from './reopen-dialog';
import { ENDED, RUN_STATUS_OPTIONS, shortId } from './run-status';

const PAGE = 25;
const SEVERITIES = ['critical', 'project', 'capacity'] as const;
const RANGES = { any: 'Any time', '1h': 'Last hour', today: 'Today', '7d': 'Last 7 days', custom: 'Custom' } as const;
type Range = keyof typeof RANGES;
type Sort = 'started' | 'ended' | 'duration' | 'status';

function rangeBounds(range: Range, customFrom: string, customTo: string): { from?: Date; to?: Date } {
  const now = new Date();
  if (range === '1h') return { from: new Date(now.getTime() - 3_600_000) };
  if (range === 'today') {
    const start = new Date(now);
    start.setHours(0, 0, 0, 0);
    return { from: start };
  }
  if (range === '7d') return { from: new Date(now.getTime() - 7 * 86_400_000) };
  if (range === 'custom') {
    const out: { from?: Date; to?: Date } = {};
    if (customFrom) out.from = new Date(customFrom);
    if (customTo) out.to = new Date(customTo);
    return out;
  }
  return {};
}

export function RunList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<(typeof RUN_STATUS_OPTIONS)[number] | ''>('');
  const [meshId, setMeshId] = useState('');
  const [cause, setCause] = useState<(typeof CAUSES)[number] | ''>('');
  const [severity, setSeverity] = useState<(typeof SEVERITIES)[number] | ''>('');
  const [range, setRange] = useState<Range>('any');
  const [customFrom, setCustomFrom] = useState('');
  const [customTo, setCustomTo] = useState('');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>('started');
  const [direction, setDirection] = useState<'asc' | 'desc'>('desc');
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [reopening, setReopening] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // The time range is fixed when chosen, so polling does not slide it (and change the query key) every render.
  const bounds = useMemo(() => rangeBounds(range, customFrom, customTo), [range, customFrom, customTo]);
  const meshes = useQuery(trpc.meshes.list.queryOptions(undefined, { staleTime: 60_000 }));
  const filters = {
    ...(status ? { status } : {}),
    ...(meshId ? { meshId } : {}),
    ...(cause ? { cause } : {}),
    ...(severity ? { severity } : {}),
    ...bounds,
    ...(search.trim() ? { search: search.trim() } : {}),
  };
  const runs = useQuery(
    trpc.runs.list.queryOptions(
      { ...filters, sort, direction, limit: PAGE, offset: page * PAGE },
      {
        placeholderData: keepPreviousData,
        refetchInterval: (q) => (q.state.data?.items.some((r) => !ENDED.has(r.status)) ? 2000 : 30_000),
      },
    ),
  );
  const reset = () => { setPage(0); setSelected(new Set()); };
  const sortBy = (key: Sort) => {
    if (sort === key) setDirection(direction === 'desc' ? 'asc' : 'desc');
    else { setSort(key); setDirection('desc'); }
    reset();
  };
  const arrow = (key: Sort) => (sort === key ? (direction === 'desc' ? ' ↓' : ' ↑') : '');
  const reopenable = (runs.data?.items ?? []).filter((r) => r.status === 'failed' || r.status === 'stalled');
  const allSelected = reopenable.length > 0 && reopenable.every((r) => selected.has(r.id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const done = (r: ReopenDone) => {
    setReopening(false);
    setSelected(new Set());
    setNotice(`Re-opened ${r.reopened.length} ${r.reopened.length === 1 ? 'run' : 'runs'}${r.refused.length ? `; ${r.refused.length} refused` : ''}.`);
    void runs.refetch();
  };
  const th = 'px-3 py-2 font-medium';
  const sortable = (key: Sort, label: string, right = false) => (
    <th className={`${th} ${right ? 'text-right' : ''}`} aria-sort={sort === key ? (direction === 'desc' ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="uppercase tracking-wide hover:text-slate-900" onClick={() => sortBy(key)} data-testid={`runs-sort-${key}`}>
        {label}{arrow(key)}
      </button>
    </th>
  );
  return (
    <section data-testid="run-list">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Runs</h1>
          <p className="text-sm text-slate-600">One input through one mesh version, with every message accounted for.</p>
        </div>
        <label className="text-sm">
          <span className="sr-only">Search</span>
          <input className={`${inputClass} w-72`} placeholder="Search run id or input name" value={search} data-testid="runs-search"
            onChange={(e) => { setSearch(e.target.value); reset(); }} />
        </label>
      </div>
      <div className="mb-3 flex flex-wrap items-end gap-3 text-sm">
        <label>
          <span className="mb-0.5 block text-xs text-slate-600">Mesh</span>
          <select className={`${inputClass} w-44`} value={meshId} data-testid="runs-filter-mesh" onChange={(e) => { setMeshId(e.target.value); reset(); }}>
            <option value="">All meshes</option>
            {meshes.data?.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>
        </label>
        <label>
          <span className="mb-0.5 block text-xs text-slate-600">Status</span>
          <select className={`${inputClass} w-32`} value={status} data-testid="runs-filter-status"
            onChange={(e) => { setStatus(e.target.value as typeof status); reset(); }}>
            <option value="">All</option>
            {RUN_STATUS_OPTIONS.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>
          <span className="mb-0.5 block text-xs text-slate-600">Cause</span>
          <select className={`${inputClass} w-48`} value={cause} data-testid="runs-filter-cause"
            onChange={(e) => { setCause(e.target.value as typeof cause); reset(); }}>
            <option value="">Any cause</option>
            {CAUSES.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        <label>
          <span className="mb-0.5 block text-xs text-slate-600">Severity</span>
          <select className={`${inputClass} w-32`} value={severity} data-testid="runs-filter-severity"
            onChange={(e) => { setSeverity(e.target.value as typeof severity); reset(); }}>
            <option value="">Any</option>
            {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>
          <span className="mb-0.5 block text-xs text-slate-600">Started</span>
          <select className={`${inputClass} w-36`} value={range} data-testid="runs-filter-range"
            onChange={(e) => { setRange(e.target.value as Range); reset(); }}>
            {Object.entries(RANGES).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
          </select>
        </label>
        {range === 'custom' && (
          <>
            <label>
              <span className="mb-0.5 block text-xs text-slate-600">From</span>
              <input type="datetime-local" className={`${inputClass} w-52`} value={customFrom} onChange={(e) => { setCustomFrom(e.target.value); reset(); }} data-testid="runs-filter-from" />
            </label>
            <label>
              <span className="mb-0.5 block text-xs text-slate-600">To</span>
              <input type="datetime-local" className={`${inputClass} w-52`} value={customTo} onChange={(e) => { setCustomTo(e.target.value); reset(); }} data-testid="runs-filter-to" />
            </label>
          </>
        )}
        <div className="ml-auto flex items-center gap-2">
          {selected.size > 0 && <span className="text-slate-600" data-testid="runs-selected">{selected.size} selected</span>}
          <button type="button" className={buttonClass.secondary} disabled={selected.size === 0} onClick={() => setReopening(true)} data-testid="runs-reopen">
            Re-open selected
          </button>
        </div>
      </div>
      {notice && <p className="mb-2 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800" data-testid="runs-notice">{notice}</p>}
      {runs.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(runs.error)}</p>}
      {runs.isPending && <p className="text-sm text-slate-500">Loading runs…</p>}
      {runs.data?.total === 0 && (
        <p className="text-sm text-slate-500" data-testid="run-list-empty">
          {Object.keys(filters).length ? 'No runs match these filters.' : 'No runs yet. Open a mesh, choose a document and start a run.'}
        </p>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="w-8 px-3 py-2">
                  <input type="checkbox" aria-label="Select every failed or stalled run on this page" checked={allSelected} disabled={reopenable.length === 0}
                    data-testid="runs-select-all"
                    onChange={() => setSelected(allSelected ? new Set() : new Set(reopenable.map((r) => r.id)))} />
                </th>
                <th className={th}>Run</th>
                <th className={th}>Mesh</th>
                {sortable('status', 'Status')}
                <th className={th}>Cause</th>
                {sortable('started', 'Started')}
                {sortable('ended', 'Ended')}
                {sortable('duration', 'Duration', true)}
                <th className={`${th} text-right`} title="messages published">Published</th>
                <th className={`${th} text-right`}>Done</th>
                <th className={`${th} text-right`} title="dead-lettered">Dead</th>
                <th className={`${th} text-right`}>Lost</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((r) => {
                const canReopen = r.status === 'failed' || r.status === 'stalled';
                return (
                  <tr key={r.id} className="border-b border-slate-100 last:border-0 hover:bg-slate-50" data-testid={`run-row-${r.id}`} data-status={r.status}>
                    <td className="px-3 py-2">
                      {canReopen && <input type="checkbox" aria-label={`Select run ${r.id}`} checked={selected.has(r.id)} onChange={() => toggle(r.id)} data-testid="run-select" />}
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">
                      <Link href={`/runs/${r.id}`} className="text-sky-700 hover:underline" data-testid="run-link">{shortId(r.id)}</Link>
                      {r.inputName && <span className="block max-w-40 truncate font-sans text-slate-500" title={r.inputName}>{r.inputName}</span>}
                    </td>
                    <td className="px-3 py-2">
                      <Link href={`/meshes/${r.meshId}`} className="hover:underline">{r.meshName}</Link>
                      <span className="ml-1 text-xs text-slate-500">v{r.meshVersion}</span>
                    </td>
                    <td className="px-3 py-2"><StatusBadge status={r.status} /></td>
                    <td className="min-w-64 max-w-sm px-3 py-2 text-slate-700" title={r.causeMessage ?? ''}>
                      {r.cause ? (
                        <span className="flex items-start gap-1.5">
                          <SeverityBadge severity={r.severity} />
                          <span className="line-clamp-2">{r.causeMessage ?? r.cause}</span>
                        </span>
                      ) : <span className="text-slate-400">—</span>}
                    </td>
                    <td className="whitespace-nowrap px-3 py-2 text-slate-600">{formatDateTime(r.startedAt ?? r.createdAt)}</td>
                    <td className="whitespace-nowrap px-3 py-2 text-slate-600">{formatDateTime(r.endedAt)}</td>
                    <td className="whitespace-nowrap px-3 py-2 text-right tabular-nums">{formatDuration(r.seconds)}</td>
                    <td className="px-3 py-2 text-right tabular-nums">{formatCount(r.counts.published)}</td>
                    <td className="px-3 py-2 text-right tabular-nums">{formatCount(r.counts.done)}</td>
                    <td className={`px-3 py-2 text-right tabular-nums ${r.counts.deadLettered ? 'font-semibold text-red-700' : ''}`}>{formatCount(r.counts.deadLettered)}</td>
                    <td className={`px-3 py-2 text-right tabular-nums ${r.counts.lost ? 'font-semibold text-red-800' : ''}`}>{formatCount(r.counts.lost)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {runs.data && <Pager page={page} size={PAGE} total={runs.data.total} onPage={(p) => { setPage(p); setSelected(new Set()); }} testId="runs-pager" />}
      {reopening && <ReopenDialog runIds={[...selected]} onClose={() => setReopening(false)} onDone={done} />}
    </section>
  );
}
