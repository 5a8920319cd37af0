'use client';
/**
 * The frame every member node shares: handles, title, kind, head marker, and the overlay
 * (findings badge in the editor, counts on the run page). Kind components fill in the summary.
 * Findings never change a member's size: they sit in a badge whose popover lists them.
 */
import { Handle, Position } from '@xyflow/react';
import { useState, type ReactNode } from 'react';
import type { Finding } from '@trellis/mesh/findings';
import type { Member } from '@trellis/mesh/schema';
import type { KindStyle } from '../kinds/types';
import { useOverlay, worst } from '../overlay';

export function MemberShell({ member, style, children }: { member: Member; style: KindStyle; children?: ReactNode }) {
  const { findingsByMember, counts, readOnly } = useOverlay();
  const findings = findingsByMember.get(member.id);
  const severity = worst(findings);
  const c = counts?.[member.id];
  const border = severity === 'error' ? 'border-red-500' : severity === 'warning' ? 'border-amber-500' : 'border-slate-300';
  return (
    <div data-testid={`node-${member.id}`} data-kind={member.kind} data-severity={severity}
      className={`relative w-52 rounded-lg border-2 ${border} bg-white text-left shadow-sm`}>
      <Handle type="target" position={Position.Top} id="in" isConnectable={!readOnly} data-testid={`handle-${member.id}-in`} className="bg-slate-500!" />
      <div className={`flex items-center gap-1.5 rounded-t-md px-2.5 py-1 text-[11px] font-semibold uppercase tracking-wide ${style.header}`}>
        <span aria-hidden>{style.icon}</span>
        {style.label}
        {member.head && <span className="ml-auto rounded bg-white/80 px-1.5 text-[10px] text-slate-800" data-testid={`node-${member.id}-head`}>head</span>}
      </div>
      <div className="px-2.5 py-1.5">
        <div className="truncate text-sm font-medium" title={member.label ?? member.id}>{member.label ?? member.id}</div>
        {member.label && <div className="truncate font-mono text-[11px] text-slate-500">{member.id}</div>}
        {children && <div className="mt-1 text-xs text-slate-600">{children}</div>}
      </div>
      {c && (
        <div className="flex flex-wrap gap-x-2 border-t border-slate-100 px-2.5 py-1 text-[11px] tabular-nums" data-testid={`node-${member.id}-counts`}>
          <span title="messages published to this member">{c.published} in</span>
          <span className="text-emerald-700" title="done">{c.done} done</span>
          {c.running + c.pending + c.parked > 0 && <span className="text-sky-700" title="waiting or working">{c.running + c.pending + c.parked} open</span>}
          {c.deadLettered > 0 && <span className="text-red-700" title="dead-lettered">{c.deadLettered} dead</span>}
          {c.lost > 0 && <span className="font-semibold text-red-800" title="lost">{c.lost} lost</span>}
        </div>
      )}
      {severity && findings && <FindingsBadge memberId={member.id} severity={severity} findings={findings} />}
      <Handle type="source" position={Position.Bottom} id="out" isConnectable={!readOnly} data-testid={`handle-${member.id}-out`} className="bg-slate-500!" />
    </div>
  );
}

/** The findings count on a member's corner; clicking it (or Enter) opens the list, Escape closes it. */
function FindingsBadge({ memberId, severity, findings }: { memberId: string; severity: 'error' | 'warning'; findings: readonly Finding[] }) {
  const [open, setOpen] = useState(false);
  const noun = findings.length === 1 ? 'finding' : 'findings';
  return (
    <div className="nodrag nopan absolute -right-2 -top-2 z-10">
      <button type="button" data-testid={`node-${memberId}-finding`} data-severity={severity} aria-expanded={open}
        aria-label={`${findings.length} ${noun} on ${memberId}`} title={findings.map((f) => f.message).join('\n')}
        onClick={(e) => { e.stopPropagation(); setOpen((o) => !o); }}
        onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); setOpen(false); } }}
        className={`flex h-5 min-w-5 items-center justify-center rounded-full px-1 text-[11px] font-bold text-white ${severity === 'error' ? 'bg-red-700' : 'bg-amber-700'}`}>
        {findings.length}
      </button>
      {open && (
        <ul role="tooltip" data-testid={`node-${memberId}-findings`}
          className="absolute right-0 top-6 w-64 space-y-1 rounded-md border border-slate-200 bg-white p-2 text-[11px] leading-snug shadow-lg">
          {findings.map((f, i) => (
            <li key={i} className={f.severity === 'error' ? 'text-red-700' : 'text-amber-800'}>{f.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
