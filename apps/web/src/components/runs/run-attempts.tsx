'use client';
/**
 * A run's re-open history and its Re-open button: a table of attempts (the first start, then each
 * re-open: who, when, the mesh version it used, from which member(s), and how it ended), and, for a
 * failed or stalled run, a button that opens the re-open confirmation (how many runs, from which
 * member, which version).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { buttonClass } from '@/components/ui/button';
import { formatDateTime } from '@/components/ui/format';
import { StatusBadge } from '@/components/ui/status-badge';
import { useTRPC } from '@/trpc/client';
import { ReopenDialog } from './reopen-dialog';
import { plural } from './timeline-scale';
import { useCan } from '@/components/ui/access';

export function RunAttempts({ runId, status }: { runId: string; status: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const attempts = useQuery(trpc.runs.attempts.queryOptions({ runId }));
  const reopenable = status === 'failed' || status === 'stalled';
  const canOperate = useCan('operate');
  const { refetch } = attempts;
  // The last attempt's outcome is the run's state: read it again whenever the state changes.
  useEffect(() => {
    void refetch();
  }, [status, refetch]);
  const list = attempts.data ?? [];
  return (
    <section className="space-y-2" aria-label="attempts" data-testid="run-attempts">
      <div className="flex items-center gap-3">
        <h2 className="text-sm font-semibold text-slate-700">History</h2>
        {reopenable && canOperate && (
          <button type="button" className={buttonClass.primary} onClick={() => setOpen(true)} data-testid="run-reopen">
            Re-open…
          </button>
        )}
        {note && <span className="text-sm text-slate-600" data-testid="run-reopen-note">{note}</span>}
      </div>
      {list.length > 1 && (
        <table className="w-full text-left text-sm" data-testid="run-attempts-table">
          <thead className="text-xs text-slate-500">
            <tr><th className="py-1">attempt</th><th>who</th><th>when</th><th>mesh version</th><th>from member(s)</th><th>outcome</th></tr>
          </thead>
          <tbody>
            {list.map((a) => (
              <tr key={a.attempt} className="border-t border-slate-100" data-testid={`run-attempt-${a.attempt}`}>
                <td className="py-1 tabular-nums">{a.attempt}</td>
                <td>{a.by ?? '—'}</td>
                <td>{formatDateTime(a.at)}</td>
                <td>v{a.meshVersion}{a.versionChoice === 'first' ? '' : a.versionChoice === 'latest' ? ' (latest)' : ' (own)'}</td>
                <td>{a.members.length > 0 ? a.members.join(', ') : a.versionChoice === 'first' ? 'first start' : '—'}{a.republished > 0 ? ` · ${plural(a.republished, 'message')}` : ''}</td>
                <td title={a.outcomeMessage ?? undefined}><StatusBadge status={a.outcome} />{a.outcomeCause && <span className="ml-1 font-mono text-xs">{a.outcomeCause}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.length <= 1 && !attempts.isPending && <p className="text-sm text-slate-500">Not re-opened so far.</p>}
      {open && (
        <ReopenDialog
          runIds={[runId]}
          onClose={() => setOpen(false)}
          onDone={(r) => {
            setOpen(false);
            setNote(r.reopened.length > 0 ? 'Re-opened.' : `Not re-opened: ${r.refused[0]?.reason ?? 'refused'}`);
            void queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() });
          }}
        />
      )}
    </section>
  );
}
