/** Run states that will not change any more (a stalled run can still be reopened, but nothing moves on its own). */
export const ENDED = new Set(['done', 'failed', 'stalled', 'cancelled']);

export const RUN_STATUS_OPTIONS = ['queued', 'running', 'done', 'failed', 'stalled', 'cancelled'] as const;
export const MESSAGE_STATUS_OPTIONS = ['pending', 'running', 'done', 'dead', 'lost', 'parked', 'cancelled', 'filtered'] as const;

/** Runs a person may cancel: those that can still move. */
export const CANCELLABLE = new Set(['queued', 'running', 'stalled']);

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}
