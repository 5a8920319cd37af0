'use client';
/**
 * One run in the Runs table: id and input name, mesh and version, status (with the Urgent badge),
 * cause and the admission verdict in words, times and counts.
 */
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@trellis/api/root';
import { formatCount, formatDuration, formatShortDateTime } from '@/components/ui/format';
import { SeverityBadge } from '@/components/ui/severity-badge';
import { StatusBadge } from '@/components/ui/status-badge';
import { CopyId } from './copy-id';
import { plainSentence } from './plain-text';
import { ADMISSION_TONE_CLASS, admissionWords, CANCELLABLE, shortId } from './run-status';
import { UrgentBadge } from './run-urgent';
import { useCan } from '@/components/ui/access';

/** A run as `runs.list` lists it. */
export type RunItem = inferRouterOutputs<AppRouter>['runs']['list']['items'][number];

/** Failed and stalled runs can be re-opened (and so selected). */
export const canReopen = (r: Pick<RunItem, 'status'>): boolean => r.status === 'failed' || r.status === 'stalled';

/** Queued, running and stalled runs can be marked urgent (engine runs/mark-urgent.ts). */
export const canMarkUrgent = (r: Pick<RunItem, 'status'>): boolean => CANCELLABLE.has(r.status);

/** Runs an operator can select: for re-opening or for marking urgent. */
export const canSelect = (r: Pick<RunItem, 'status'>): boolean => canReopen(r) || canMarkUrgent(r);

export function RunRow({ run: r, selected, onToggle }: { run: RunItem; selected: boolean; onToggle: () => void }) {
  // Selecting is for re-opening and marking urgent, which operators and admins do.
  const canOperate = useCan('operate');
  const verdict = admissionWords(r.admission, r.admissionLine);
  return (
    <tr className="border-b border-slate-100 last:border-0 hover:bg-slate-50" data-testid={`run-row-${r.id}`} data-status={r.status}>
      <td className="px-3 py-2">
        {canSelect(r) && canOperate && <input type="checkbox" aria-label={`Select run ${r.id}`} checked={selected} onChange={onToggle} data-testid="run-select" />}
      </td>
      <td className="whitespace-nowrap px-2 py-2 font-mono text-xs">
        <Link href={`/runs/${r.id}`} className="text-sky-700 hover:underline" data-testid="run-link" title={r.id}>{shortId(r.id)}</Link>
        <CopyId id={r.id} />
        {r.inputName && <span className="block max-w-28 truncate font-sans text-slate-500" title={r.inputName}>{r.inputName}</span>}
      </td>
      <td className="px-2 py-2">
        <Link href={`/meshes/${r.meshId}`} className="hover:underline [overflow-wrap:anywhere]">{r.meshName}</Link>
        <span className="ml-1 text-xs text-slate-500">v{r.meshVersion}</span>
      </td>
      <td className="px-2 py-2">
        <span className="flex flex-col items-start gap-1">
          <StatusBadge status={r.status} />
          {r.urgent && <UrgentBadge />}
        </span>
      </td>
      <td className="min-w-32 max-w-xs px-2 py-2 text-slate-700 [overflow-wrap:anywhere]" title={[r.causeMessage, verdict?.text].filter(Boolean).join('\n')}>
        {r.cause && (
          <span className="flex items-start gap-1.5">
            <SeverityBadge severity={r.severity} />
            <span className="line-clamp-2" data-testid="run-cause-text">{r.causeMessage ? plainSentence(r.causeMessage).sentence : r.cause}</span>
          </span>
        )}
        {verdict && (
          <span className={`${r.cause ? 'mt-0.5 line-clamp-1 text-xs' : 'line-clamp-2'} ${ADMISSION_TONE_CLASS[verdict.tone]}`} data-testid="run-admission-text" data-verdict={verdict.verdict}>
            {verdict.text}
          </span>
        )}
        {!r.cause && !verdict && <span className="text-slate-400">—</span>}
      </td>
      <td className="whitespace-nowrap px-2 py-2 text-xs text-slate-600">
        <span className="block">{formatShortDateTime(r.startedAt ?? r.createdAt)}</span>
        <span className="block text-slate-500">{formatShortDateTime(r.endedAt)}</span>
      </td>
      <td className="whitespace-nowrap px-2 py-2 text-right tabular-nums">{formatDuration(r.seconds)}</td>
      <td className="px-2 py-2 text-right tabular-nums">{formatCount(r.counts.published)}</td>
      <td className="px-2 py-2 text-right tabular-nums">{formatCount(r.counts.done)}</td>
      <td className={`px-2 py-2 text-right tabular-nums ${r.counts.deadLettered ? 'font-semibold text-red-700' : ''}`}>{formatCount(r.counts.deadLettered)}</td>
      <td className={`px-2 py-2 text-right tabular-nums ${r.counts.lost ? 'font-semibold text-red-800' : ''}`}>{formatCount(r.counts.lost)}</td>
    </tr>
  );
}
