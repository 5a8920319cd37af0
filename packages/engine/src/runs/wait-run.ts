/** Use case: wait until a run ends. */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { runs } from '@trellis/db/schema/runs';
import { RunNotFoundError } from '../kernel/errors';
import { getRun, type RunView } from './get-run';

/** Statuses after which a run no longer changes by itself. */
export const FINAL_STATUSES: readonly string[] = ['done', 'failed', 'stalled', 'cancelled'];

/**
 * Polls the run's status (a one-row read) every `pollMs` (default 100) until it is done, failed,
 * stalled or cancelled, or `timeoutMs` passes (or `signal` aborts: the caller left); then returns the full view, which may still be `running` on timeout.
 * @throws RunNotFoundError when the run does not exist.
 */
export async function waitForRun(db: Db, runId: string, options: { timeoutMs: number; pollMs?: number; signal?: AbortSignal }): Promise<RunView> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const [row] = await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
    if (!row) throw new RunNotFoundError(runId);
    if (FINAL_STATUSES.includes(row.status) || Date.now() >= deadline || options.signal?.aborted) break;
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 100, Math.max(deadline - Date.now(), 1))));
  }
  const view = await getRun(db, runId);
  if (!view) throw new RunNotFoundError(runId);
  return view;
}
