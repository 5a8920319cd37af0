import type { Member } from '@trellis/mesh/schema';
import type { MemberCountsView } from '@/components/canvas/overlay';
import { formatCount } from '@/components/ui/format';

/** The same per-member counts as on the mesh, as a table that stays readable for big meshes. */
export function MemberCountsTable({ members, counts }: { members: readonly Member[]; counts: Record<string, MemberCountsView> }) {
  return (
    <div className="max-h-[32rem] overflow-auto rounded-lg border border-slate-200 bg-white lg:col-span-2" data-testid="member-counts">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-3 py-2 font-medium">Member</th>
            <th className="px-2 py-2 text-right font-medium" title="messages published to it">In</th>
            <th className="px-2 py-2 text-right font-medium">Done</th>
            <th className="px-2 py-2 text-right font-medium" title="pending, running or parked">Open</th>
            <th className="px-2 py-2 text-right font-medium" title="dead-lettered">Dead</th>
            <th className="px-2 py-2 text-right font-medium">Lost</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            const c = counts[m.id];
            const open = c ? c.pending + c.running + c.parked : 0;
            return (
              <tr key={m.id} className="border-b border-slate-100 last:border-0" data-testid={`member-counts-${m.id}`}>
                <td className="px-3 py-1.5">
                  <span className="block truncate">{m.label ?? m.id}</span>
                  {m.label && <span className="block font-mono text-[11px] text-slate-500">{m.id}</span>}
                </td>
                <td className="px-2 py-1.5 text-right tabular-nums">{formatCount(c?.published ?? 0)}</td>
                <td className="px-2 py-1.5 text-right tabular-nums text-emerald-700">{formatCount(c?.done ?? 0)}</td>
                <td className="px-2 py-1.5 text-right tabular-nums text-sky-700">{formatCount(open)}</td>
                <td className={`px-2 py-1.5 text-right tabular-nums ${c?.deadLettered ? 'font-semibold text-red-700' : ''}`}>{formatCount(c?.deadLettered ?? 0)}</td>
                <td className={`px-2 py-1.5 text-right tabular-nums ${c?.lost ? 'font-semibold text-red-800' : ''}`}>{formatCount(c?.lost ?? 0)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
