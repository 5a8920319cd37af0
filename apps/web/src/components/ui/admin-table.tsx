'use client';
/**
 * The one list table of the admin and catalogue pages (meshes, services, users, secrets,
 * connections, egress, tools): the load's error, a loading line, an empty line, then a bordered
 * table with one row per item. Each page says only its columns and its words.
 */
import type { ReactNode } from 'react';
import { errorMessage } from '@/trpc/errors';

/** One column: its heading and how a row shows in it. */
export interface AdminColumn<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Classes of the cell (and, for `text-right`, of the heading). */
  className?: string;
}

/** What the table needs of a query (a react-query result fits). */
export interface AdminTableQuery<T> {
  data: readonly T[] | undefined;
  isPending: boolean;
  isError: boolean;
  error: unknown;
}

/** A list as a table; `testId` names the empty line `<testId>-empty`, the error `<testId>-error`, the table `<testId>-table`. */
export function AdminTable<T>({
  query,
  columns,
  rowKey,
  rowTestId,
  testId,
  empty,
  loading,
  hover = false,
}: {
  query: AdminTableQuery<T>;
  columns: readonly AdminColumn<T>[];
  rowKey: (row: T) => string;
  rowTestId: (row: T) => string;
  testId: string;
  /** The line shown when there is nothing, e.g. "No secrets stored yet." */
  empty: ReactNode;
  /** The line shown while loading, e.g. "Loading secrets…" */
  loading: string;
  hover?: boolean;
}) {
  if (query.isError) {
    return <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid={`${testId}-error`}>{errorMessage(query.error)}</p>;
  }
  if (query.isPending || !query.data) return <p className="text-sm text-slate-500">{loading}</p>;
  if (query.data.length === 0) return <p className="text-sm text-slate-500" data-testid={`${testId}-empty`}>{empty}</p>;
  return (
    <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm" data-testid={`${testId}-table`}>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {columns.map((c, i) => (
              <th key={i} className={`px-4 py-2 font-medium ${c.className?.includes('text-right') ? 'text-right' : ''}`}>{c.header}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {query.data.map((row) => (
            <tr key={rowKey(row)} className={`border-b border-slate-100 last:border-0 ${hover ? 'hover:bg-slate-50' : ''}`} data-testid={rowTestId(row)}>
              {columns.map((c, i) => (
                <td key={i} className={`px-4 py-2.5 ${c.className ?? ''}`}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
