'use client';
/**
 * Cancelling a run from its page: a button that asks for confirmation (with an optional reason),
 * then stops the run's steps wherever they run and sets its open messages aside.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass, inputClass } from '@/components/ui/button';
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
  if (!asking) {
    return (
      <button type="button" className={buttonClass.danger} onClick={() => setAsking(true)} data-testid="run-cancel">
        Cancel run…
      </button>
    );
  }
  return (
    <form
      className="flex flex-wrap items-center gap-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm"
      data-testid="run-cancel-confirm"
      onSubmit={(e) => {
        e.preventDefault();
        cancel.mutate({ runId, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      }}
    >
      <span className="text-red-900">Stop every step of this run and set its open messages aside?</span>
      <label className="flex items-center gap-1">
        <span className="sr-only">Reason</span>
        <input className={`${inputClass} w-56`} placeholder="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="run-cancel-reason" />
      </label>
      <button type="submit" className={buttonClass.danger} disabled={cancel.isPending} data-testid="run-cancel-yes">
        {cancel.isPending ? 'Cancelling…' : 'Cancel the run'}
      </button>
      <button type="button" className={buttonClass.ghost} onClick={() => setAsking(false)}>Keep it running</button>
      {cancel.isError && <span role="alert" className="text-red-800">{errorMessage(cancel.error)}</span>}
    </form>
  );
}
