'use client';
/**
 * Marking a run urgent from its page: a button that asks for confirmation, then puts the run's
 * messages ahead of normal work on every pool they reach (normal work keeps its reserved share).
 * An urgent run shows a badge instead.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass } from '@/components/ui/button';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';

export function RunUrgent({ runId, urgent, canOperate }: { runId: string; urgent: boolean; canOperate: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const mark = useMutation(
    trpc.runs.markUrgent.mutationOptions({
      onSuccess: () => {
        setAsking(false);
        void queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() });
      },
    }),
  );
  if (urgent) {
    return (
      <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900" data-testid="run-urgent-badge">
        Urgent
      </span>
    );
  }
  if (!canOperate) return null;
  if (!asking) {
    return (
      <button type="button" className={buttonClass.secondary} onClick={() => setAsking(true)} data-testid="run-urgent">
        Mark urgent…
      </button>
    );
  }
  return (
    <span className="flex flex-wrap items-center gap-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm" data-testid="run-urgent-confirm">
      <span className="text-amber-900">Run this run&apos;s waiting and future steps ahead of normal work on every pool?</span>
      <button type="button" className={buttonClass.primary} disabled={mark.isPending} onClick={() => mark.mutate({ runIds: [runId] })} data-testid="run-urgent-yes">
        {mark.isPending ? 'Marking…' : 'Mark urgent'}
      </button>
      <button type="button" className={buttonClass.ghost} onClick={() => setAsking(false)}>Keep it normal</button>
      {mark.isError && <span role="alert" className="text-red-800">{errorMessage(mark.error)}</span>}
      {mark.data?.refused[0] && <span role="alert" className="text-red-800">Not marked: {mark.data.refused[0].reason}</span>}
    </span>
  );
}
