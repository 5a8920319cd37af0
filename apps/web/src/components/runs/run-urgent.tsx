'use client';
/**
 * Marking runs urgent: from a run's page (one run) and the Runs tab's bulk action (the selected
 * runs), each a button that asks for confirmation, then puts the runs' messages ahead of normal
 * work on every pool they reach (normal work keeps its reserved share). An urgent run shows a
 * badge instead of the button.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { buttonClass } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { errorMessage } from '@/trpc/errors';
import { useTRPC } from '@/trpc/client';
import { plural } from './timeline-scale';

/** What runs.markUrgent answered: the runs now urgent and those refused, each with its reason. */
export interface UrgentDone {
  marked: string[];
  refused: { runId: string; reason: string }[];
}

/** The `Urgent` badge of a run whose messages go first (the run page's header, a Runs tab row). */
export function UrgentBadge() {
  return (
    <span className="whitespace-nowrap rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900" data-testid="run-urgent-badge">
      Urgent
    </span>
  );
}

/**
 * The button and its confirmation for `runIds` (at most MARK_URGENT_MAX; engine runs/mark-urgent.ts).
 * `onDone` hears the answer; with `keepOnRefusal` a refusal stays in the dialog instead (one run:
 * the run page says why it was not marked).
 */
function MarkUrgent({ runIds, label, title, testId, keepOnRefusal, note, onDone }: {
  runIds: readonly string[];
  note?: string | null;
  label: string;
  title: string;
  testId: string;
  keepOnRefusal: boolean;
  onDone?: (result: UrgentDone) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const mark = useMutation(
    trpc.runs.markUrgent.mutationOptions({
      onSuccess: (r) => {
        void queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() });
        if (keepOnRefusal && r.refused.length > 0) return;
        setAsking(false);
        onDone?.({ marked: r.marked, refused: r.refused });
      },
    }),
  );
  const refusal = keepOnRefusal && mark.data?.refused[0] ? `Not marked: ${mark.data.refused[0].reason}.` : null;
  return (
    <>
      <button type="button" className={buttonClass.secondary} disabled={runIds.length === 0} data-testid={testId}
        onClick={() => { mark.reset(); setAsking(true); }}>
        {label}
      </button>
      {asking && (
        <ConfirmDialog title={title} confirmLabel="Mark urgent" busyLabel="Marking…" cancelLabel={runIds.length === 1 ? 'Keep it normal' : 'Keep them normal'} testId={testId}
          busy={mark.isPending} error={mark.isError ? errorMessage(mark.error) : refusal}
          onConfirm={() => mark.mutate({ runIds: [...runIds] })} onCancel={() => setAsking(false)}>
          <p>
            {runIds.length === 1 ? 'Its' : 'Their'} waiting messages go first on every pool, and so do the ones {runIds.length === 1 ? 'it publishes' : 'they publish'} from
            now on; normal work keeps its reserved share.
          </p>
          {note && <p className="text-amber-800">{note}</p>}
        </ConfirmDialog>
      )}
    </>
  );
}

/** The run page's control: the badge once urgent, else (for operators and admins) the button. */
export function RunUrgent({ runId, urgent, canOperate }: { runId: string; urgent: boolean; canOperate: boolean }) {
  if (urgent) return <UrgentBadge />;
  if (!canOperate) return null;
  return <MarkUrgent runIds={[runId]} label="Mark urgent…" title="Mark this run urgent?" testId="run-urgent" keepOnRefusal />;
}

/**
 * The Runs tab's bulk action over the selected runs, in one call; `ended` of them have ended (the
 * dialog says they will be refused, and the answer says why).
 */
export function RunsUrgent({ runIds, ended, onDone }: { runIds: readonly string[]; ended: number; onDone: (result: UrgentDone) => void }) {
  const note = ended > 0 ? `${ended === runIds.length ? (ended === 1 ? 'It has' : 'They have') : `${ended} of them ${ended === 1 ? 'has' : 'have'}`} already ended, so ${ended === 1 ? 'it' : 'those'} will be refused.` : null;
  return <MarkUrgent runIds={runIds} label="Mark urgent…" title={`Mark ${plural(runIds.length, 'run')} urgent?`} testId="runs-urgent" keepOnRefusal={false} note={note} onDone={onDone} />;
}
