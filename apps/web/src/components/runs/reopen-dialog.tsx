'use client';
/**
 * Re-open confirmation for one or many runs: asks runs.reopenPreview what would happen (how many
 * runs, from which member, on which version, which are refused and why), then calls runs.reopen.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
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
  const failure = preview.isError ? preview.error : reopen.isError ? reopen.error : null;
  return (
    <ConfirmDialog title={`Re-open ${runIds.length === 1 ? 'run' : `${runIds.length} runs`}`} confirmLabel={`Re-open ${preview.data?.runs ?? ''}`} busyLabel="Re-opening…"
      cancelLabel="Cancel" testId="reopen" busy={reopen.isPending} ready={Boolean(preview.data && preview.data.runs > 0)}
      error={failure ? errorMessage(failure) : null} onConfirm={() => reopen.mutate({ runIds, version })} onCancel={onClose}
      fields={
        <fieldset className="flex gap-4">
          <legend className="sr-only">Mesh version</legend>
          <label className="flex items-center gap-1.5">
            <input type="radio" name="reopen-version" checked={version === 'pinned'} onChange={() => setVersion('pinned')} data-testid="reopen-pinned" />
            the run&apos;s own mesh version
          </label>
          <label className="flex items-center gap-1.5">
            <input type="radio" name="reopen-version" checked={version === 'latest'} onChange={() => setVersion('latest')} data-testid="reopen-latest" />
            the latest saved version
          </label>
        </fieldset>
      }>
      {preview.isPending && <p className="text-slate-500">Checking what a re-open would do…</p>}
      {preview.data && <p data-testid="reopen-summary">{preview.data.summary}</p>}
      {preview.data && preview.data.refused.length > 0 && (
        <ul className="max-h-32 list-disc overflow-auto pl-5 text-amber-800">
          {preview.data.refused.map((r) => <li key={r.runId}><span className="font-mono text-xs">{r.runId}</span>: {r.reason}</li>)}
        </ul>
      )}
    </ConfirmDialog>
  );
}
