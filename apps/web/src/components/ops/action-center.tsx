'use client';
/**
 * The Action Center: an item per open failed or stalled group (mesh + cause) and per approval
 * request, written by the engine as runs fail. Each shows cause, severity, who acts, the sentence
 * and its runs; actions: acknowledge, assign, re-open (runs.reopen), resolve with a comment,
 * approve or reject. Every action is recorded with who and when (the item's history). Which items
 * are shown (open, resolved, all) is kept in the URL.
 */
import { useQuery } from '@tanstack/react-query';
import { inputClass } from '@/components/ui/button';
import { useQueryState } from '@/components/ui/use-query-state';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { ActionItemCard } from './action-item';

const SHOWN = ['active', 'resolved', 'all'] as const;
type Shown = (typeof SHOWN)[number];

// `?show=resolved` or `?show=all` in the URL; open items by default.
const parseShown = (params: URLSearchParams): Shown => SHOWN.find((s) => s === params.get('show')) ?? 'active';
const formatShown = (state: Shown): string => (state === 'active' ? '' : `show=${state}`);

export function ActionCenter() {
  const trpc = useTRPC();
  const [state, setState] = useQueryState(parseShown, formatShown);
  // No polling: the engine's live events (components/live) refetch this list.
  const items = useQuery(trpc.actions.list.queryOptions({ state }));
  const people = useQuery(trpc.actions.people.queryOptions(undefined, { staleTime: 60_000 }));
  return (
    <section data-testid="action-center">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Action Center</h1>
          <p className="text-sm text-slate-600">Failed and stalled groups and approval requests, as the engine records them.</p>
        </div>
        <label className="text-sm">
          <span className="mr-2 text-slate-600">Show</span>
          <select className={`${inputClass} inline-block w-36`} value={state} onChange={(e) => setState(e.target.value as Shown)} data-testid="actions-filter-state">
            <option value="active">Open</option>
            <option value="resolved">Resolved</option>
            <option value="all">All</option>
          </select>
        </label>
      </div>
      {items.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(items.error)}</p>}
      {items.isPending && <p className="text-sm text-slate-500">Loading…</p>}
      {items.data?.length === 0 && <p className="text-sm text-slate-500" data-testid="actions-empty">Nothing needs a person right now.</p>}
      <ul className="space-y-3">
        {items.data?.map((item) => <ActionItemCard key={item.id} item={item} people={people.data ?? []} />)}
      </ul>
    </section>
  );
}
