'use client';
/** The Runs tab's filter bar: mesh, status, cause, severity and the time range (custom: from / to). */
import type { ReactNode } from 'react';
import { CAUSES } from '@trellis/mesh/causes';
import { inputClass } from '@/components/ui/button';
import { RANGES, SEVERITIES, type Range, type RunQuery } from './run-query';
import { RUN_STATUS_OPTIONS } from './run-status';

interface Props {
  query: RunQuery;
  meshes: readonly { id: string; name: string }[];
  /** Sets the changed filters (the list goes back to page 1). */
  onChange: (patch: Partial<RunQuery>) => void;
  /** Shown at the right end of the bar (the bulk actions). */
  children?: ReactNode;
}

function Labelled({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label>
      <span className="mb-0.5 block text-xs text-slate-600">{label}</span>
      {children}
    </label>
  );
}

/** A select over `options`, with `''` (shown as `any`) for no filter. */
function Choice<T extends string>(props: { label: string; testId: string; width: string; value: T | ''; options: readonly T[]; any: string; onChange: (v: T | '') => void }) {
  return (
    <Labelled label={props.label}>
      <select className={`${inputClass} ${props.width}`} value={props.value} data-testid={props.testId} onChange={(e) => props.onChange(e.target.value as T | '')}>
        <option value="">{props.any}</option>
        {props.options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </Labelled>
  );
}

export function RunFilters({ query, meshes, onChange, children }: Props) {
  return (
    <div className="mb-3 flex flex-wrap items-end gap-3 text-sm">
      <Labelled label="Mesh">
        <select className={`${inputClass} w-44`} value={query.mesh} data-testid="runs-filter-mesh" onChange={(e) => onChange({ mesh: e.target.value })}>
          <option value="">All meshes</option>
          {meshes.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      </Labelled>
      <Choice label="Status" testId="runs-filter-status" width="w-32" value={query.status} options={RUN_STATUS_OPTIONS} any="All"
        onChange={(status) => onChange({ status })} />
      <Choice label="Cause" testId="runs-filter-cause" width="w-48" value={query.cause} options={CAUSES} any="Any cause"
        onChange={(cause) => onChange({ cause })} />
      <Choice label="Severity" testId="runs-filter-severity" width="w-32" value={query.severity} options={SEVERITIES} any="Any"
        onChange={(severity) => onChange({ severity })} />
      <Labelled label="Started">
        <select className={`${inputClass} w-36`} value={query.range} data-testid="runs-filter-range" onChange={(e) => onChange({ range: e.target.value as Range })}>
          {Object.entries(RANGES).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
        </select>
      </Labelled>
      {query.range === 'custom' && (
        <>
          <Labelled label="From">
            <input type="datetime-local" className={`${inputClass} w-52`} value={query.from} onChange={(e) => onChange({ from: e.target.value })} data-testid="runs-filter-from" />
          </Labelled>
          <Labelled label="To">
            <input type="datetime-local" className={`${inputClass} w-52`} value={query.to} onChange={(e) => onChange({ to: e.target.value })} data-testid="runs-filter-to" />
          </Labelled>
        </>
      )}
      <div className="ml-auto flex items-center gap-2">{children}</div>
    </div>
  );
}
