/** Ending runs: done when every message is done; failed with one cause otherwise. */
import { sql } from 'drizzle-orm';
import type { Cause } from '@trellis/mesh/causes';
import { causeSentence } from '@trellis/mesh/causes';
import { rows, type Queryable, textArray } from '../sql';

/**
 * Marks `done` those of the given running (or stalled) runs with no message left that is not done.
 * Safe to call any time and from anywhere: the guard makes it idempotent.
 * @returns the ids of the runs it ended.
 */
export async function finalizeRuns(db: Queryable, runIds: readonly string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const ended = await rows<{ id: string }>(
    db,
    sql`update runs set status = 'done', cause = null, cause_member = null, cause_message = null,
               ended_at = now(), moved_at = now()
         where id = any(${textArray(runIds)})
           and status in ('running', 'stalled')
           and not exists (select 1 from messages m where m.run_id = runs.id and m.status <> 'done')
     returning id`,
  );
  return ended.map((r) => r.id);
}

/** Why a run failed: a cause from the list, where, and the detail in plain words. */
export interface Failure {
  cause: Cause;
  /** Member id, when the failure concerns one. */
  member?: string;
  /** The member's label for the sentence (its id when absent). */
  memberLabel?: string;
  detail: string;
}

/**
 * Fails a running (or stalled) run with its one cause; a run already ended keeps its first cause.
 * @returns true when this call ended the run.
 */
export async function failRun(db: Queryable, runId: string, failure: Failure): Promise<boolean> {
  const where = failure.memberLabel ?? failure.member;
  const sentence = causeSentence({ cause: failure.cause, ...(where ? { member: where } : {}), detail: failure.detail });
  const ended = await rows<{ id: string }>(
    db,
    sql`update runs set status = 'failed', cause = ${failure.cause}, cause_member = ${failure.member ?? null},
               cause_message = ${sentence}, ended_at = now(), moved_at = now()
         where id = ${runId} and status in ('running', 'stalled')
     returning id`,
  );
  return ended.length > 0;
}
