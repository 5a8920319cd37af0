import type { Finding } from '@trellis/mesh/findings';

/** Where a finding points, for the click handler. */
export type FindingTarget = { member: string } | { channel: string };

function targetOf(f: Finding): FindingTarget | undefined {
  if (f.member) return { member: f.member };
  if (f.channel) return { channel: f.channel };
  return undefined;
}

/** Findings as a list: errors red, warnings amber, each naming its member or channel. */
export function FindingsList({ findings, onSelect }: { findings: readonly Finding[]; onSelect?: (t: FindingTarget) => void }) {
  return (
    <ul className="space-y-1.5" data-testid="findings-list">
      {findings.map((f, i) => {
        const target = targetOf(f);
        const tone = f.severity === 'error' ? 'border-red-200 bg-red-50 text-red-800' : 'border-amber-200 bg-amber-50 text-amber-900';
        const body = (
          <>
            <span className="font-medium">{f.severity === 'error' ? 'Error' : 'Warning'}</span>
            {f.member && <span className="ml-1.5 rounded bg-white/70 px-1 font-mono text-xs">member {f.member}</span>}
            {f.channel && <span className="ml-1.5 rounded bg-white/70 px-1 font-mono text-xs">channel {f.channel}</span>}
            {f.field && <span className="ml-1.5 rounded bg-white/70 px-1 font-mono text-xs">field {f.field}</span>}
            <span className="mt-0.5 block">{f.message}</span>
            <span className="mt-0.5 block font-mono text-[11px] opacity-60">{f.code}</span>
          </>
        );
        return (
          <li key={`${f.code}-${f.member ?? ''}-${f.channel ?? ''}-${i}`} data-testid={`finding-${f.code}`}
            data-member={f.member} data-channel={f.channel} data-field={f.field} data-severity={f.severity}
            className={`rounded-md border px-2.5 py-1.5 text-sm ${tone}`}>
            {target && onSelect ? (
              <button type="button" className="w-full text-left" onClick={() => onSelect(target)}>
                {body}
              </button>
            ) : (
              body
            )}
          </li>
        );
      })}
    </ul>
  );
}
