/**
 * Ending runs: done when every message is done; failed with one cause otherwise. Whenever runs end
 * (done, failed or cancelled) every member kind's `onRunEnded` hook is told (members/index.ts), so
 * this module knows no kind: a nested mesh's child run continues or fails its parked parent there.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { causeSentence } from '@trellis/mesh/causes';
import type { Engine } from '../kernel/engine';
import { enqueue } from '../kernel/queues';
import { IdRow, rows, type Queryable, textArray } from '../kernel/sql';
import { recordEvents } from '../events/outbox';
import { recordRunFailure } from '../lifecycle/record-failure';
import { cancelChildRuns } from '../lifecycle/cancel-runs';
import { clearStalled } from '../lifecycle/clear-stalled';
import { KINDS } from '../members/index';
import type { RunEndActions, RunFailure } from '../members/types';
import { continueParked, planOfMessage } from './continue';
import type { CommitResult } from './commit';
import { noteCommitted } from './stats';
import { msgStatuses, runStatus, runStatuses } from '../kernel/statuses';
import { fenced, type Fence } from '../kernel/fence';

const UnfiredJoinRow = z.object({ run_id: z.string(), member: z.string(), expected: z.number(), received: z.number(), skipped: z.number() });

/**
 * Ends those of the given running (or stalled) runs that have nothing left to move. A run is `done`
 * only when every message is finished (`done`, or a `filtered` trail row) and every keyed join has
 * fired (DESIGN.md §3); one whose messages are all finished but with a join that never fired can
 * never complete, so it fails with `outcome_unreadable`, naming the combine and its count (never
 * counted a success). Safe to call any time and from anywhere: the guards make it idempotent.
 * With `fence` (the orchestrator leader's sweep, runtime/leader.ts) each ending transaction first
 * checks the lease (kernel/fence.ts).
 * @returns the ids of the runs it ended `done`.
 * @throws FenceLostError when `fence` no longer holds its lease; nothing is ended then.
 */
export async function finalizeRuns(engine: Engine, runIds: readonly string[], fence?: Fence): Promise<string[]> {
  if (runIds.length === 0) return [];
  const db = engine.db;
  // A run that was stalled and ends done leaves its Action Center item (lifecycle/clear-stalled.ts)
  // in the transaction that ends it: no reader sees the run done with its stalled item still open.
  const ended = await db.transaction(async (tx) => {
    await fenced(tx, fence);
    const done = await rows(
      tx,
      sql`update runs set status = ${runStatus('done')}, cause = null, cause_member = null, cause_message = null,
                 ended_at = now(), moved_at = now()
           where id = any(${textArray(runIds)})
             and status in ${runStatuses('running', 'stalled')}
             and not exists (select 1 from messages m where m.run_id = runs.id and m.status not in ${msgStatuses('done', 'filtered')})
             and not exists (select 1 from joins j where j.run_id = runs.id and j.fired_at is null)
       returning id`,
      IdRow,
    );
    if (done.length > 0) {
      // Live updates: watchers of these runs refetch (events/outbox.ts).
      await recordEvents(tx, done.map((r) => ({ kind: 'run.status' as const, runId: r.id, status: 'done' })));
      await clearStalled(tx, done.map((r) => r.id));
    }
    return done;
  });
  // The kinds' run-end hooks (a nested mesh's child run continues its parked parent).
  if (ended.length > 0) await runsEnded(db, ended.map((r) => r.id), engine);
  const doneIds = new Set(ended.map((r) => r.id));
  await failUnfiredJoins(engine, runIds.filter((id) => !doneIds.has(id)), fence);
  return ended.map((r) => r.id);
}

/** Fails the runs among `runIds` that have every message finished but a join that has not fired. */
async function failUnfiredJoins(engine: Engine, runIds: readonly string[], fence: Fence | undefined): Promise<void> {
  if (runIds.length === 0) return;
  const { db } = engine;
  const stuck = await rows(
    db,
    sql`select distinct on (j.run_id) j.run_id, j.member, j.expected, j.received, j.skipped
          from runs r
          join joins j on j.run_id = r.id and j.fired_at is null
         where r.id = any(${textArray(runIds)}) and r.status in ${runStatuses('running', 'stalled')}
           and not exists (select 1 from messages m where m.run_id = r.id and m.status not in ${msgStatuses('done', 'filtered')})
         order by j.run_id, j.created_at, j.member, j.key`,
    UnfiredJoinRow,
  );
  for (const j of stuck) {
    const arrived = j.received - j.skipped;
    const skipped = j.skipped === 0 ? '' : ` and ${j.skipped} skipped`;
    await db.transaction(async (tx) => {
      await fenced(tx, fence);
      await failRun(tx, j.run_id, {
        cause: 'outcome_unreadable',
        member: j.member,
        detail: `the combine received ${arrived} of ${j.expected} parts${skipped}, and nothing is left that could send the rest, so it can never fire`,
      });
    });
  }
}

/**
 * Fails a running (or stalled) run with its one cause; a run already ended keeps its first cause.
 * With `queued`, a run still queued (held at admission, runs/run-limits.ts) is failed too.
 * @returns true when this call ended the run.
 */
export async function failRun(db: Queryable, runId: string, failure: RunFailure, options: { queued?: boolean } = {}): Promise<boolean> {
  const where = failure.memberLabel ?? failure.member;
  const sentence = causeSentence({ cause: failure.cause, ...(where ? { member: where } : {}), ...(failure.step ? { step: failure.step } : {}), detail: failure.detail });
  const ended = await rows(
    db,
    sql`update runs set status = ${runStatus('failed')}, cause = ${failure.cause}, cause_member = ${failure.member ?? null},
               cause_message = ${sentence}, ended_at = now(), moved_at = now()
         where id = ${runId} and status in ${options.queued ? runStatuses('running', 'stalled', 'queued') : runStatuses('running', 'stalled')}
     returning id`,
    IdRow,
  );
  // The Action Center's group item takes the run in, in the caller's transaction (lifecycle/record-failure.ts).
  if (ended.length > 0) await recordRunFailure(db, runId, { cause: failure.cause, member: failure.member, memberLabel: failure.memberLabel, detail: failure.detail });
  // The kinds' run-end hooks (a failed child run fails its parked parent); a failed parent stops its
  // own running child runs, whose results nobody would read.
  if (ended.length > 0) {
    await runsEnded(db, [runId]);
    await cancelChildRuns(db, [runId], `Cancelled because its parent run ${runId} failed.`);
  }
  return ended.length > 0;
}

/** What run-end hooks and park-lane sweeps may do to other runs (members/types.ts). */
export const RUN_END_ACTIONS: RunEndActions = { failRun, resumeParked };

/**
 * Tells every member kind that `runIds` ended (any final status), in `db`: the engine's database or
 * the transaction that ended them. Only with `engine` (runs ended outside a transaction) may a hook
 * continue other runs, each in a transaction of its own.
 */
export async function runsEnded(db: Queryable, runIds: readonly string[], engine?: Engine): Promise<void> {
  if (runIds.length === 0) return;
  for (const kind of Object.values(KINDS)) {
    if ('onRunEnded' in kind && kind.onRunEnded) await kind.onRunEnded({ db, engine, runIds, ...RUN_END_ACTIONS });
  }
}

/** Continues the parked message `messageId` of run `runId` with `answer`, then publishes what it sent. */
export async function resumeParked(engine: Engine, runId: string, messageId: string, answer: unknown): Promise<void> {
  const plan = await planOfMessage(engine, runId);
  if (!plan) return;
  const result = await engine.db.transaction((tx) => continueParked(tx, engine, plan, messageId, answer, failRun));
  await publishCommitted(engine, result);
}

/** After commit: adds the children's jobs and ends runs that have nothing left. Errors are left to the relay and sweep. */
export async function publishCommitted(engine: Engine, result: CommitResult | undefined): Promise<void> {
  if (!result) return;
  noteCommitted(result);
  try {
    await enqueue(engine, result.children.map((c) => ({ pool: c.pool, runId: c.run_id, messageId: c.id, member: c.member })));
    await finalizeRuns(engine, result.quiet);
  } catch (err) {
    engine.log.warn('after continuing a parked message: left for the relay and the sweep', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
