'use client';
import type { Finding } from '@trellis/mesh/findings';
import { FindingsList, type FindingTarget } from '@/components/ui/findings-list';

/** Every finding for the mesh as drawn; clicking one selects the member or channel it names. */
export function FindingsPanel({ findings, checking, problem, onSelect }: {
  findings: readonly Finding[];
  checking: boolean;
  problem: string | null;
  onSelect: (t: FindingTarget) => void;
}) {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  return (
    <section className="space-y-2" data-testid="findings-panel">
      <h2 className="flex items-center gap-2 text-sm font-semibold">
        Checks
        <span className="text-xs font-normal text-slate-500" data-testid="findings-summary">
          {checking ? 'checking…' : findings.length === 0 ? 'no problems found' : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`}
        </span>
      </h2>
      {problem && <p role="alert" className="text-sm text-red-700">The check could not run: {problem}</p>}
      {findings.length > 0 && <FindingsList findings={findings} onSelect={onSelect} />}
      {!problem && findings.length === 0 && !checking && (
        <p className="text-sm text-emerald-700" data-testid="findings-none">The mesh is ready to run.</p>
      )}
    </section>
  );
}
