'use client';
/**
 * The Action Center: an item per open failed or stalled group (mesh + cause) and per approval
 * request, written by the engine as runs fail. Each shows cause, severity, who acts, the sentence
 * and its runs; actions: acknowledge, assign, re-open (runs.reopen), resolve with a comment,
 * approve or reject. Every action is recorded with who and when (the item's history).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@trellis/api/root';
import { buttonClass, inputClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { SeverityBadge } from '@/components/ui/severity-badge';
import { StatusBadge } from '@/components/ui/status-badge';
import { ReopenDialog, type ReopenDone } from '@/components/runs/reopen-dialog';
import { shortId } from '@/components/runs/run-status';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

type Item = inferRouterOutputs<AppRouter>['actions']['list'][number];

const ACTION_WORDS: Record<string, string> = {
  opened: 'opened',
  acknowledged: 'acknowledged',
  assigned: 'assigned',
  reopened: 're-opened runs',
  resolved: 'resolved',
  approved: 'approved',
  rejected: 'rejected',
};

export function ActionCenter() {
  const trpc = useTRPC();
  const [state, setState] = useState<'active' | 'resolved' | 'all'>('active');
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
          <select className={`${inputClass} inline-block w-36`} value={state} onChange={(e) => setState(e.target.value as typeof state)} data-testid="actions-filter-state">
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
        {items.data?.map((item) => <ItemCard key={item.id} item={item} people={people.data ?? []} />)}
      </ul>
    </section>
  );
}

function ItemCard({ item, people }: { item: Item; people: { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const [comment, setComment] = useState('');
  const [reopening, setReopening] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const act = useMutation(trpc.actions.act.mutationOptions());
  const decide = useMutation(trpc.actions.decide.mutationOptions());
  const error = act.error ?? decide.error;
  const resolved = item.state === 'resolved';
  const failing = item.runs.filter((r) => r.status === 'failed' || r.status === 'stalled').map((r) => r.id);
  const reopened = (r: ReopenDone) => {
    setReopening(false);
    setNotice(`Re-opened ${r.reopened.length} ${r.reopened.length === 1 ? 'run' : 'runs'}${r.refused.length ? `; ${r.refused.length} refused` : ''}.`);
    if (r.reopened.length > 0) act.mutate({ itemId: item.id, action: 'reopened', runIds: r.reopened });
  };
  return (
    <li className="rounded-lg border border-slate-200 bg-white p-4" data-testid="action-item" data-kind={item.kind} data-cause={item.cause ?? ''}
      data-mesh={item.meshName} data-state={item.state}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1 space-y-1">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            {item.kind === 'approval' ? (
              <span className="rounded bg-violet-100 px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-violet-800">approval</span>
            ) : (
              <SeverityBadge severity={item.severity} />
            )}
            {item.cause && <span className="font-mono text-xs text-slate-600">{item.cause}</span>}
            <Link href={`/meshes/${item.meshId}`} className="font-medium hover:underline">{item.meshName}</Link>
            <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700" data-testid="action-item-state">{item.state}</span>
            {item.assignee && <span className="text-xs text-slate-600">assigned to {item.assignee.name}</span>}
          </div>
          <p className="text-sm text-slate-900" data-testid="action-item-sentence">{item.sentence}</p>
          <p className="text-xs text-slate-500">
            Who acts: {item.whoActs}. {item.runCount} {item.runCount === 1 ? 'run' : 'runs'}
            {item.kind === 'failure' ? `, ${item.stillFailing} still failed or stalled` : ''}. First seen {formatDateTime(item.firstSeen)}, last seen {formatDateTime(item.lastSeen)}.
          </p>
        </div>
      </div>

      {item.approval && (
        <div className="mt-2 rounded-md bg-violet-50 p-2 text-sm" data-testid="approval-box" data-status={item.approval.status}>
          <p className="text-slate-700">
            {item.approval.messages === 0
              ? 'Its output waits to become the run\'s output'
              : `${item.approval.messages} ${item.approval.messages === 1 ? 'message' : 'messages'} waiting to be published`}
            {item.approval.decidedBy ? ` — ${item.approval.status} by ${item.approval.decidedBy} ${formatDateTime(item.approval.decidedAt)}` : ''}
            {item.approval.comment ? `: ${item.approval.comment}` : ''}
          </p>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-white p-2 font-mono text-xs text-slate-700" data-testid="approval-preview">
            {JSON.stringify(item.approval.preview, null, 2)}
          </pre>
        </div>
      )}

      <ul className="mt-2 flex flex-wrap gap-2 text-xs" aria-label="runs">
        {item.runs.map((r) => (
          <li key={r.id} className="flex items-center gap-1 rounded border border-slate-200 px-1.5 py-0.5" data-testid="action-item-run" data-run={r.id}>
            <Link href={`/runs/${r.id}`} className="font-mono text-sky-700 hover:underline">{shortId(r.id)}</Link>
            <StatusBadge status={r.status} />
          </li>
        ))}
      </ul>

      {!resolved && (
        <div className="mt-3 flex flex-wrap items-center gap-2 border-t border-slate-100 pt-3">
          {item.approval?.status === 'pending' && (() => {
            const approvalId = item.approval.id;
            return (
            <>
              <button type="button" className={buttonClass.primary} disabled={decide.isPending} data-testid="approval-approve"
                onClick={() => decide.mutate({ approvalId, decision: 'approve', ...(comment.trim() ? { comment } : {}) })}>
                Approve
              </button>
              <button type="button" className={buttonClass.danger} disabled={decide.isPending || comment.trim() === ''} data-testid="approval-reject"
                title={comment.trim() === '' ? 'Write why in the comment first' : undefined}
                onClick={() => decide.mutate({ approvalId, decision: 'reject', comment })}>
                Reject
              </button>
            </>
            );
          })()}
          {item.kind === 'failure' && (
            <>
              {item.state === 'open' && (
                <button type="button" className={buttonClass.secondary} disabled={act.isPending} data-testid="action-acknowledge"
                  onClick={() => act.mutate({ itemId: item.id, action: 'acknowledge' })}>
                  Acknowledge
                </button>
              )}
              <button type="button" className={buttonClass.secondary} disabled={failing.length === 0} data-testid="action-reopen"
                onClick={() => setReopening(true)}>
                Re-open {failing.length > 0 ? failing.length : ''}
              </button>
            </>
          )}
          <label className="text-sm">
            <span className="sr-only">Assign to</span>
            <select className={`${inputClass} inline-block w-40`} value={item.assignee?.id ?? ''} data-testid="action-assign"
              onChange={(e) => e.target.value && act.mutate({ itemId: item.id, action: 'assign', assignee: e.target.value })}>
              <option value="">Assign to…</option>
              {people.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </label>
          <input className={`${inputClass} w-64 flex-1`} placeholder="Comment" value={comment} onChange={(e) => setComment(e.target.value)} data-testid="action-comment" />
          {item.kind === 'failure' && (
            <button type="button" className={buttonClass.secondary} disabled={act.isPending || comment.trim() === ''} data-testid="action-resolve"
              onClick={() => act.mutate({ itemId: item.id, action: 'resolve', comment }, { onSuccess: () => setComment('') })}>
              Resolve
            </button>
          )}
        </div>
      )}
      {notice && <p className="mt-2 text-sm text-emerald-800" data-testid="action-notice">{notice}</p>}
      {error && <p role="alert" className="mt-2 text-sm text-red-700">{errorMessage(error)}</p>}
      {item.history.length > 0 && (
        <details className="mt-2 text-xs text-slate-600">
          <summary className="cursor-pointer">History</summary>
          <ol className="mt-1 space-y-0.5" data-testid="action-history">
            {item.history.map((h, i) => (
              <li key={i}>
                {formatDateTime(h.at)} — {h.actorName ?? 'Trellis'} {ACTION_WORDS[h.action] ?? h.action}
                {historyDetail(h.detail)}
              </li>
            ))}
          </ol>
        </details>
      )}
      {reopening && <ReopenDialog runIds={failing} onClose={() => setReopening(false)} onDone={reopened} />}
    </li>
  );
}

function historyDetail(detail: unknown): string {
  if (!detail || typeof detail !== 'object') return '';
  const d = detail as { name?: unknown; comment?: unknown; runIds?: unknown };
  if (typeof d.name === 'string') return ` to ${d.name}`;
  if (typeof d.comment === 'string' && d.comment) return `: ${d.comment}`;
  if (Array.isArray(d.runIds)) return ` (${d.runIds.length})`;
  return '';
}
