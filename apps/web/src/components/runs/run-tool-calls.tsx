'use client';
/**
 * The tool calls of a run, from its tool trail (tools.calls): which agent called which tool on
 * which registered server, and whether it ran, reported an error or was refused (outside the
 * agent's grants). Shown once there is a call; polled while the run is live.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { AdminTable } from '@/components/ui/admin-table';
import { formatDateTime } from '@/components/ui/format';
import { useTRPC } from '@/trpc/client';

const TONE = { ok: 'text-emerald-700', error: 'text-amber-700', refused: 'text-red-700' } as const;

export function RunToolCalls({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const calls = useQuery(trpc.tools.calls.queryOptions({ runId }, { refetchInterval: live ? 2000 : false }));
  const { refetch } = calls;
  // Read once more when the run ends: its last calls may have come after the last poll.
  useEffect(() => {
    if (!live) void refetch();
  }, [live, refetch]);
  if (calls.isSuccess && calls.data.length === 0) return null;
  return (
    <section className="space-y-2" aria-label="tool calls" data-testid="run-tool-calls">
      <h2 className="text-sm font-semibold text-slate-700">Tool calls</h2>
      <AdminTable
        query={calls}
        testId="run-tool-calls"
        loading="Loading tool calls…"
        empty="No tool calls."
        rowKey={(c) => c.id}
        rowTestId={(c) => `run-tool-call-${c.id}`}
        columns={[
          { header: 'When', className: 'text-slate-600', cell: (c) => formatDateTime(c.at) },
          { header: 'Agent', className: 'font-medium', cell: (c) => c.member },
          { header: 'Tool', className: 'font-mono text-xs', cell: (c) => c.tool },
          { header: 'Server', className: 'text-slate-600', cell: (c) => c.server ?? '—' },
          { header: 'Outcome', cell: (c) => <span className={`font-medium ${TONE[c.outcome]}`} data-testid="run-tool-call-outcome">{c.outcome}</span> },
          { header: 'Detail', className: 'max-w-md break-words text-slate-600', cell: (c) => c.detail ?? '' },
        ]}
      />
    </section>
  );
}
