'use client';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formText } from '@/components/ui/form-text';
import { formatDateTime } from '@/components/ui/format';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

interface Filter {
  actor?: string;
  action?: string;
  since?: Date;
  until?: Date;
}

function exportUrl(filter: Filter): string {
  const q = new URLSearchParams({ limit: '1000' });
  if (filter.actor) q.set('actor', filter.actor);
  if (filter.action) q.set('action', filter.action);
  if (filter.since) q.set('since', filter.since.toISOString());
  if (filter.until) q.set('until', filter.until.toISOString());
  return `/api/v1/audit?${q.toString()}`;
}

/**
 * The admins' Audit page: the sealed trail newest first, filtered by person, action and time, with
 * an export (the same entries as JSON, hashes included) and a check of the whole hash chain.
 */
export function AuditLog() {
  const trpc = useTRPC();
  const [filter, setFilter] = useState<Filter>({});
  const entries = useQuery(trpc.audit.list.queryOptions({ ...filter, limit: 200 }));
  const verdict = useQuery({ ...trpc.audit.verify.queryOptions(), enabled: false });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const date = (k: string) => (formText(data, k) ? new Date(formText(data, k)) : undefined);
    const next: Filter = {};
    if (formText(data, 'actor')) next.actor = formText(data, 'actor');
    if (formText(data, 'action')) next.action = formText(data, 'action');
    const since = date('since');
    const until = date('until');
    if (since) next.since = since;
    if (until) next.until = until;
    setFilter(next);
  }

  return (
    <section data-testid="audit-log">
      <div className="mb-6 flex items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Audit</h1>
          <p className="text-sm text-slate-600">Every privileged action, hash-chained so that an edited or removed entry shows.</p>
        </div>
        <div className="flex items-center gap-2">
          <button type="button" className={buttonClass.secondary} onClick={() => void verdict.refetch()} data-testid="audit-verify">Verify the chain</button>
          <a className={buttonClass.secondary} href={exportUrl(filter)} download="trellis-audit.json" data-testid="audit-export">Export JSON</a>
        </div>
      </div>
      {verdict.data && (
        <p role="status" className={`mb-4 rounded-md px-3 py-2 text-sm ${verdict.data.ok ? 'bg-emerald-50 text-emerald-800' : 'bg-red-50 text-red-700'}`} data-testid="audit-verdict">
          {verdict.data.ok
            ? `The chain holds: ${verdict.data.entries} entries.`
            : `Broken at entry ${verdict.data.broken.seq} (${verdict.data.broken.action}): ${verdict.data.broken.reason}.`}
        </p>
      )}
      <form onSubmit={onSubmit} className="mb-4 flex flex-wrap items-end gap-2 rounded-lg border border-slate-200 bg-white p-3">
        <label className="block text-sm font-medium">Person (email)<input name="actor" className={`mt-1 w-56 ${inputClass}`} data-testid="audit-actor" /></label>
        <label className="block text-sm font-medium">Action<input name="action" placeholder="user. or sign_in.failed" className={`mt-1 w-48 ${inputClass}`} data-testid="audit-action" /></label>
        <label className="block text-sm font-medium">From<input name="since" type="datetime-local" className={`mt-1 ${inputClass}`} /></label>
        <label className="block text-sm font-medium">To<input name="until" type="datetime-local" className={`mt-1 ${inputClass}`} /></label>
        <button type="submit" className={buttonClass.primary} data-testid="audit-filter">Filter</button>
      </form>
      {entries.isError && <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">{errorMessage(entries.error)}</p>}
      {entries.data && (
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr><th className="px-3 py-2">#</th><th className="px-3 py-2">When</th><th className="px-3 py-2">Who</th><th className="px-3 py-2">Action</th><th className="px-3 py-2">On</th><th className="px-3 py-2">Detail</th></tr>
            </thead>
            <tbody>
              {entries.data.map((e) => (
                <tr key={e.seq} className="border-b border-slate-100 last:border-0" data-testid={`audit-row-${e.seq}`}>
                  <td className="px-3 py-2 text-slate-500">{e.seq}</td>
                  <td className="px-3 py-2 text-slate-600">{formatDateTime(e.at)}</td>
                  <td className="px-3 py-2">{e.actorEmail ?? 'Trellis'}</td>
                  <td className="px-3 py-2 font-mono text-xs">{e.action}</td>
                  <td className="px-3 py-2">{e.target}</td>
                  <td className="px-3 py-2 font-mono text-xs text-slate-600">{JSON.stringify(e.detail)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {entries.data.length === 0 && <p className="px-4 py-3 text-sm text-slate-500">No entries match.</p>}
        </div>
      )}
    </section>
  );
}
