'use client';
/** The changes between two versions as a list, in the canvas's diff colours, with a legend. */
import type { Changed, MeshDiff } from './mesh-diff';

const TONE = {
  added: 'border-emerald-600 text-emerald-800',
  removed: 'border-red-600 text-red-800',
  changed: 'border-amber-600 text-amber-900',
} as const;

export function DiffList({ diff, from, to }: { diff: MeshDiff; from: number; to: number }) {
  const rows: { tone: keyof typeof TONE; what: string; key: string; detail?: string }[] = [
    ...diff.members.added.map((key) => ({ tone: 'added' as const, what: 'member', key })),
    ...diff.members.removed.map((key) => ({ tone: 'removed' as const, what: 'member', key })),
    ...diff.members.changed.map((c: Changed) => ({ tone: 'changed' as const, what: 'member', key: c.key, detail: c.fields.join(', ') })),
    ...diff.channels.added.map((key) => ({ tone: 'added' as const, what: 'channel', key })),
    ...diff.channels.removed.map((key) => ({ tone: 'removed' as const, what: 'channel', key })),
    ...diff.channels.changed.map((c: Changed) => ({ tone: 'changed' as const, what: 'channel', key: c.key, detail: c.fields.join(', ') })),
    ...diff.mesh.map((key) => ({ tone: 'changed' as const, what: 'mesh', key })),
  ];
  return (
    <aside className="space-y-3 text-sm" aria-label="list of changes" data-testid="diff-list" data-total={diff.total}>
      <p className="text-slate-700">
        {diff.total === 0 ? `v${from} and v${to} have the same members and channels.` : `${diff.total} ${diff.total === 1 ? 'change' : 'changes'} from v${from} to v${to}`}
        {diff.members.moved.length > 0 && <span className="text-slate-500"> ({diff.members.moved.length} {diff.members.moved.length === 1 ? 'member' : 'members'} only moved)</span>}
      </p>
      <ul className="space-y-1">
        {rows.map((r) => (
          <li key={`${r.tone}-${r.what}-${r.key}`} className={`border-l-4 bg-white px-2 py-1 ${TONE[r.tone]}`} data-testid={`diff-${r.tone}-${r.what}-${r.key}`}>
            <span className="font-medium">{r.tone}</span> {r.what} <span className="font-mono">{r.key}</span>
            {r.detail && <span className="block text-xs text-slate-600">{r.detail}</span>}
          </li>
        ))}
      </ul>
      <p className="flex flex-wrap gap-3 text-xs text-slate-600" aria-label="legend">
        <span><span className="mr-1 inline-block h-2 w-4 bg-emerald-600 align-middle" />added</span>
        <span><span className="mr-1 inline-block h-2 w-4 bg-amber-600 align-middle" />changed</span>
        <span><span className="mr-1 inline-block h-2 w-4 border-2 border-dashed border-red-600 align-middle" />removed</span>
      </p>
    </aside>
  );
}
