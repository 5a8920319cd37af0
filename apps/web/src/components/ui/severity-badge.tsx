/** A cause's severity (DESIGN §4) as a coloured pill: critical red, project amber, capacity sky. */
const TONE: Record<string, string> = {
  critical: 'bg-red-600 text-white',
  project: 'bg-amber-100 text-amber-900',
  capacity: 'bg-sky-100 text-sky-900',
};

export function SeverityBadge({ severity }: { severity: string | null }) {
  if (!severity) return <span className="text-slate-400">—</span>;
  return (
    <span data-testid="severity" className={`inline-block rounded px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide ${TONE[severity] ?? 'bg-slate-100 text-slate-700'}`}>
      {severity}
    </span>
  );
}
