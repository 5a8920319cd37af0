'use client';
/**
 * Re-open confirmation for one or many runs: asks runs.reopenPreview what would happen (how many
 * runs, from which member, on which version, which are refused and why), then calls runs.reopen.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass } from '@/components/ui/button';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

export interface ReopenDone {
  reopened: string[];
  refused: { runId: string; reason: string }[];
}

export function ReopenDialog({ runIds, onClose, onDone }: { runIds: string[]; onClose: () => void; onDone: (result: ReopenDone) => void }) {
  const trpc = useTRPC();
  const [version, setVersion] = useState<'pinned' | 'latest'>('pinned');
  const preview = useQuery(trpc.runs.reopenPreview.queryOptions({ runIds, version }, { staleTime: 0 }));
  const reopen = useMutation(
    trpc.runs.reopen.mutationOptions({
      onSuccess: (r) => onDone({ reopened: r.reopened.map((x) => x.runId), refused: r.refused }),
    }),
  );
  return (
    <div role="dialog" aria-modal="true" aria-label="Re-open runs" className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/30 p-4" data-testid="reopen-dialog">
      <div className="w-full max-w-lg space-y-3 rounded-lg border border-slate-200 bg-white p-5 shadow-lg">
        <h2 className="text-lg font-semibold">Re-open {runIds.length === 1 ? 'run' : `${runIds.length} runs`}</h2>
        <fieldset className="flex gap-4 text-sm">
          <label className="flex items-center gap-1.5">
            <input type="radio" name="reopen-version" checked={version === 'pinned'} onChange={() => setVersion('pinned')} data-testid="reopen-pinned" />
            the run&apos;s own mesh version
          </label>
          <label className="flex items-center gap-1.5">
            <input type="radio" name="reopen-version" checked={version === 'latest'} onChange={() => setVersion('latest')} data-testid="reopen-latest" />
            the latest saved version
          </label>
        </fieldset>
        {preview.isPending && <p className="text-sm text-slate-500">Checking what a re-open would do…</p>}
        {preview.isError && <p role="alert" className="text-sm text-red-700">{errorMessage(preview.error)}</p>}
        {preview.data && (
          <div className="space-y-2 text-sm">
            <p data-testid="reopen-summary">{preview.data.summary}</p>
            {preview.data.refused.length > 0 && (
              <ul className="max-h-32 list-disc overflow-auto pl-5 text-amber-800">
                {preview.data.refused.map((r) => <li key={r.runId}><span className="font-mono text-xs">{r.runId}</span>: {r.reason}</li>)}
              </ul>
            )}
          </div>
        )}
        {reopen.isError && <p role="alert" className="text-sm text-red-700">{errorMessage(reopen.error)}</p>}
        <div className="flex justify-end gap-2">
          <button type="button" className={buttonClass.secondary} onClick={onClose}>Cancel</button>
          <button type="button" className={buttonClass.primary} data-testid="reopen-confirm"
            disabled={!preview.data || preview.data.runs === 0 || reopen.isPending}
            onClick={() => reopen.mutate({ runIds, version })}>
            {reopen.isPending ? 'Re-opening…' : `Re-open ${preview.data?.runs ?? ''}`}
          </button>
        </div>
      </div>
    </div>
  );
}
