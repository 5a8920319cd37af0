'use client';
/**
 * The Runs tab: filters (mesh, status, cause, severity, time range), search by run id or input name,
 * sortable columns, server-side pages, and two bulk actions on the selected runs (operators and
 * admins): re-open the failed or stalled ones, mark the queued, running or stalled ones urgent.
 * Filters, search, sort and page live in the URL (run-query.ts), so reload, Back and a shared link
 * keep them. Refetches when the engine says something moved (components/live) and while runs go.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { Pager } from '@/components/ui/pager';
import { useQueryState } from '@/components/ui/use-query-state';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { ReopenDialog, type ReopenDone } from './reopen-dialog';
import { RunFilters } from './run-filters';
import { formatRunQuery, parseRunQuery, rangeBounds, runFilters, type RunQuery, type RunSort } from './run-query';
import { canMarkUrgent } from './run-row';
import { ENDED, shortId } from './run-status';
import { RunTable } from './run-table';
import { plural } from './timeline-scale';
import { RunsUrgent, type UrgentDone } from './run-urgent';
import { Can } from '@/components/ui/access';

const PAGE = 25;

export function RunList() {
  const trpc = useTRPC();
  const [query, setQuery] = useQueryState(parseRunQuery, formatRunQuery);
  const view = formatRunQuery(query);
  // The search box answers each keystroke from local state; the URL follows it.
  const [search, setSearch] = useState(query.q);
  // A selection belongs to the view it was made on: another filter, sort or page clears it.
  const [selection, setSelection] = useState<{ view: string; ids: ReadonlySet<string> }>({ view, ids: new Set() });
  const selected = selection.view === view ? selection.ids : new Set<string>();
  const [reopening, setReopening] = useState(false);
  // What the last bulk action did, and the runs it refused with the reasons.
  const [notice, setNotice] = useState<{ text: string; refused: ReopenDone['refused'] } | null>(null);
  // Fixed when the range is chosen (or the page loads), so polling does not slide it and change the query key.
  const { range, from, to } = query;
  const bounds = useMemo(() => rangeBounds({ range, from, to }, new Date()), [range, from, to]);
  const filters = runFilters(query, bounds);
  const meshes = useQuery(trpc.meshes.list.queryOptions(undefined, { staleTime: 60_000 }));
  const runs = useQuery(
    trpc.runs.list.queryOptions(
      { ...filters, sort: query.sort, direction: query.dir, limit: PAGE, offset: (query.page - 1) * PAGE },
      {
        placeholderData: keepPreviousData,
        refetchInterval: (q) => (q.state.data?.items.some((r) => !ENDED.has(r.status)) ? 2000 : 30_000),
      },
    ),
  );
  const update = (patch: Partial<RunQuery>) => setQuery({ ...query, page: 1, ...patch });
  const sortBy = (sort: RunSort) => update(query.sort === sort ? { dir: query.dir === 'desc' ? 'asc' : 'desc' } : { sort, dir: 'desc' });
  const finish = (verb: string, count: number, refused: ReopenDone['refused']) => {
    setSelection({ view, ids: new Set() });
    setNotice({ text: `${verb} ${plural(count, 'run')}${refused.length ? `; ${refused.length} refused` : ''}.`, refused });
    void runs.refetch();
  };
  const done = (r: ReopenDone) => {
    setReopening(false);
    finish('Re-opened', r.reopened.length, r.refused);
  };
  const marked = (r: UrgentDone) => finish('Marked urgent:', r.marked.length, r.refused);
  const selectedIds = [...selected];
  const ended = (runs.data?.items ?? []).filter((r) => selected.has(r.id) && !canMarkUrgent(r)).length;
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
            onChange={(e) => { setSearch(e.target.value); update({ q: e.target.value }); }} />
        </label>
      </div>
      <RunFilters query={query} meshes={meshes.data ?? []} onChange={update}>
        {selected.size > 0 && <span className="text-slate-600" data-testid="runs-selected">{selected.size} selected</span>}
        <Can rule="operate">
          <button type="button" className={buttonClass.secondary} disabled={selected.size === 0} onClick={() => setReopening(true)} data-testid="runs-reopen">
            Re-open selected
          </button>
          <RunsUrgent runIds={selectedIds} ended={ended} onDone={marked} />
        </Can>
      </RunFilters>
      {notice && (
        <div className="mb-2 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800" role="status" data-testid="runs-notice">
          <p>{notice.text}</p>
          {notice.refused.length > 0 && (
            <ul className="mt-1 list-disc pl-5 text-amber-800" data-testid="runs-notice-refused">
              {notice.refused.map((r) => <li key={r.runId}><span className="font-mono text-xs">{shortId(r.runId)}</span>: {r.reason}</li>)}
            </ul>
          )}
        </div>
      )}
      {runs.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(runs.error)}</p>}
      {runs.isPending && <p className="text-sm text-slate-500">Loading runs…</p>}
      {runs.data?.total === 0 && (
        <p className="text-sm text-slate-500" data-testid="run-list-empty">
          {Object.keys(filters).length ? 'No runs match these filters.' : 'No runs yet. Open a mesh, choose a document and start a run.'}
        </p>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <RunTable runs={runs.data.items} query={query} onSort={sortBy} selected={selected} onSelect={(ids) => setSelection({ view, ids })} />
      )}
      {runs.data && <Pager page={query.page - 1} size={PAGE} total={runs.data.total} onPage={(p) => setQuery({ ...query, page: p + 1 })} testId="runs-pager" />}
      {reopening && <ReopenDialog runIds={selectedIds} onClose={() => setReopening(false)} onDone={done} />}
    </section>
  );
}
