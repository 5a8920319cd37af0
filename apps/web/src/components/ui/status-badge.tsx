const TONE: Record<string, string> = {
  queued: 'bg-slate-100 text-slate-700',
  running: 'bg-sky-100 text-sky-800',
  pending: 'bg-slate-100 text-slate-700',
  parked: 'bg-violet-100 text-violet-800',
  done: 'bg-emerald-100 text-emerald-800',
  failed: 'bg-red-100 text-red-800',
  dead: 'bg-red-100 text-red-800',
  lost: 'bg-red-200 text-red-900',
  stalled: 'bg-amber-100 text-amber-900',
  cancelled: 'bg-slate-200 text-slate-600',
  filtered: 'bg-slate-100 text-slate-700 line-through decoration-slate-500',
};

/** A run's or a message's status as a coloured pill. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span data-testid={testId} className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${TONE[status] ?? 'bg-slate-100 text-slate-700'}`}>
      {status}
    </span>
  );
}
