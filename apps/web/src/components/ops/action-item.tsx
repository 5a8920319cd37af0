'use client';
/**
 * One action item: a failed or stalled group (mesh + cause) or an approval request, with its cause,
 * severity, who acts, the sentence, its runs, what can be done with it and its history.
 */
import Link from 'next/link';
import { formatDateTime } from '@/components/ui/format';
import { SeverityBadge } from '@/components/ui/severity-badge';
import { StatusBadge } from '@/components/ui/status-badge';
import { shortId } from '@/components/runs/run-status';
import { ItemActions } from './item-actions';
import { ItemHistory } from './item-history';
import type { ActionItem } from './action-item-type';
import { Can } from '@/components/ui/access';

/** One item's card. */
export function ActionItemCard({ item, people }: { item: ActionItem; people: readonly { id: string; name: string }[] }) {
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

      <Can rule="operate">
        <ItemActions item={item} people={people} />
      </Can>
      <ItemHistory history={item.history} />
    </li>
  );
}
