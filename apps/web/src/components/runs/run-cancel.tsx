'use client';
/**
 * Cancelling a run from its page: a button that asks for confirmation (with an optional reason),
 * then stops the run's steps wherever they run and sets its open messages aside.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

export function RunCancel({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation(
    trpc.runs.cancel.mutationOptions({
      onSuccess: () => {
        setAsking(false);
        void queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() });
      },
    }),
  );
  return (
    <>
      <button type="button" className={buttonClass.danger} onClick={() => { cancel.reset(); setAsking(true); }} data-testid="run-cancel">
        Cancel run…
      </button>
      {asking && (
        <ConfirmDialog title="Cancel this run?" confirmLabel="Cancel the run" busyLabel="Cancelling…" cancelLabel="Keep it running" tone="danger" testId="run-cancel"
          busy={cancel.isPending} error={cancel.isError ? errorMessage(cancel.error) : null}
          onConfirm={() => cancel.mutate({ runId, ...(reason.trim() ? { reason: reason.trim() } : {}) })} onCancel={() => setAsking(false)}
          fields={
            <label className="block">
              <span className="mb-0.5 block text-xs text-slate-600">Reason (optional)</span>
              <input className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="run-cancel-reason" />
            </label>
          }>
          <p>Every step of this run stops wherever it runs, and its open messages are set aside.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
