'use client';
/** An action item's history: who did what and when, oldest first. */
import { formatDateTime } from '@/components/ui/format';
import type { ActionItem } from './action-item-type';

const ACTION_WORDS: Record<string, string> = {
  opened: 'opened',
  acknowledged: 'acknowledged',
  assigned: 'assigned',
  reopened: 're-opened runs',
  resolved: 'resolved',
  approved: 'approved',
  rejected: 'rejected',
};

export function ItemHistory({ history }: { history: ActionItem['history'] }) {
  if (history.length === 0) return null;
  return (
    <details className="mt-2 text-xs text-slate-600">
      <summary className="cursor-pointer">History</summary>
      <ol className="mt-1 space-y-0.5" data-testid="action-history">
        {history.map((h, i) => (
          <li key={i}>
            {formatDateTime(h.at)} — {h.actorName ?? 'Trellis'} {ACTION_WORDS[h.action] ?? h.action}
            {historyDetail(h.detail)}
          </li>
        ))}
      </ol>
    </details>
  );
}

function historyDetail(detail: unknown): string {
  if (!detail || typeof detail !== 'object') return '';
  const d = detail as { name?: unknown; comment?: unknown; runIds?: unknown };
  if (typeof d.name === 'string') return ` to ${d.name}`;
  if (typeof d.comment === 'string' && d.comment) return `: ${d.comment}`;
  if (Array.isArray(d.runIds)) return ` (${d.runIds.length})`;
  return '';
}
