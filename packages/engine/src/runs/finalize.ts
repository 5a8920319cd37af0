/** Ending runs: done when every message is done; failed with one cause otherwise. */
import { sql } from 'drizzle-orm';
import type { Cause } from '@trellis/mesh/causes';
import { causeSentence } from '@trellis/mesh/causes';
import { rows, type Queryable, textArray } from '../sql';
import { afterRunsEnded } from '../nested/resume';
import { recordEvents } from '../events/outbox';
import { recordRunFailure } from '../ops/record';

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
  // Live updates: watchers of these runs refetch (events/outbox.ts).
  if (ended.length > 0) await recordEvents(db, ended.map((r) => ({ kind: 'run.status' as const, runId: r.id, status: 'done' })));
  // A child run of a nested mesh continues its parked parent (nested/resume.ts).
  if (ended.length > 0) await afterRunsEnded(db, ended.map((r) => r.id));
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
  // The Action Center's group item takes the run in, in the caller's transaction (ops/record.ts).
  if (ended.length > 0) await recordRunFailure(db, runId, { cause: failure.cause, member: failure.member, memberLabel: failure.memberLabel, detail: failure.detail });
  // A failed child run of a nested mesh fails its parked parent (nested/resume.ts).
  if (ended.length > 0) await afterRunsEnded(db, [runId]);
  return ended.length > 0;
}
