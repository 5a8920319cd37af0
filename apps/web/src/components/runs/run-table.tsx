'use client';
/**
 * The Runs table: sortable column heads (the sort lives in the URL), a select-all box (for operators
 * and admins: the runs that can be re-opened or marked urgent) and a row per run.
 */
import type { RunQuery, RunSort } from './run-query';
import { canSelect, RunRow, type RunItem } from './run-row';
import { useCan } from '@/components/ui/access';

interface Props {
  runs: readonly RunItem[];
  query: Pick<RunQuery, 'sort' | 'dir'>;
  onSort: (sort: RunSort) => void;
  selected: ReadonlySet<string>;
  onSelect: (ids: ReadonlySet<string>) => void;
}

const th = 'px-2 py-2 font-medium';

export function RunTable({ runs, query, onSort, selected, onSelect }: Props) {
  const canOperate = useCan('operate');
  const selectable = runs.filter(canSelect);
  const allSelected = selectable.length > 0 && selectable.every((r) => selected.has(r.id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelect(next);
  };
  const sortButton = (key: RunSort, label: string) => (
    <button type="button" className="uppercase hover:text-slate-900" onClick={() => onSort(key)} data-testid={`runs-sort-${key}`}>
      {label}{query.sort === key ? (query.dir === 'desc' ? ' ↓' : ' ↑') : ''}
    </button>
  );
  const sortable = (key: RunSort, label: string, right = false) => (
    <th className={`${th} ${right ? 'text-right' : ''}`} aria-sort={query.sort === key ? (query.dir === 'desc' ? 'descending' : 'ascending') : 'none'}>
      {sortButton(key, label)}
    </th>
  );
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white" data-testid="runs-table-frame">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="w-8 px-2 py-2">
              {canOperate && (
                <input type="checkbox" aria-label="Select every run on this page that can be re-opened or marked urgent" checked={allSelected} disabled={selectable.length === 0}
                  data-testid="runs-select-all" onChange={() => onSelect(allSelected ? new Set() : new Set(selectable.map((r) => r.id)))} />
              )}
            </th>
            <th className={th}>Run</th>
            <th className={th}>Mesh</th>
            {sortable('status', 'Status')}
            <th className={th} title="why it failed, and the admission verdict in words">Cause / verdict</th>
            <th className={th} aria-sort={query.sort === 'started' || query.sort === 'ended' ? (query.dir === 'desc' ? 'descending' : 'ascending') : 'none'}>
              <span className="flex flex-col items-start">
                {sortButton('started', 'Started')}
                {sortButton('ended', 'Ended')}
              </span>
            </th>
            {sortable('duration', 'Duration', true)}
            <th className={`${th} text-right`} title="messages published">Published</th>
            <th className={`${th} text-right`}>Done</th>
            <th className={`${th} text-right`} title="dead-lettered">Dead</th>
            <th className={`${th} text-right`}>Lost</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => <RunRow key={r.id} run={r} selected={selected.has(r.id)} onToggle={() => toggle(r.id)} />)}
        </tbody>
      </table>
    </div>
  );
}
