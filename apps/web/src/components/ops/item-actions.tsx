'use client';
/**
 * What a person can do with an open action item: approve or reject an approval (a rejection needs a
 * comment), acknowledge, re-open the failed or stalled runs (with confirmation), assign, resolve
 * with a comment. Each action is recorded on the item by the engine.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { ReopenDialog, type ReopenDone } from '@/components/runs/reopen-dialog';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import type { ActionItem } from './action-item-type';

export function ItemActions({ item, people }: { item: ActionItem; people: readonly { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const [comment, setComment] = useState('');
  const [reopening, setReopening] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const act = useMutation(trpc.actions.act.mutationOptions());
  const decide = useMutation(trpc.actions.decide.mutationOptions());
  const error = act.error ?? decide.error;
  const failing = item.runs.filter((r) => r.status === 'failed' || r.status === 'stalled').map((r) => r.id);
  const reopened = (r: ReopenDone) => {
    setReopening(false);
    setNotice(`Re-opened ${r.reopened.length} ${r.reopened.length === 1 ? 'run' : 'runs'}${r.refused.length ? `; ${r.refused.length} refused` : ''}.`);
    if (r.reopened.length > 0) act.mutate({ itemId: item.id, action: 'reopened', runIds: r.reopened });
  };
  return (
    <>
      {item.state !== 'resolved' && (
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
      {reopening && <ReopenDialog runIds={failing} onClose={() => setReopening(false)} onDone={reopened} />}
    </>
  );
}
