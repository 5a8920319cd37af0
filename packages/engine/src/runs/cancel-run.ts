/**
 * Use case: a person cancels a run. The run ends `cancelled` (an end state, not a failure: no cause
 * from the list), with who cancelled it and why; its open messages are set aside as `cancelled`,
 * pending approvals and waiting service jobs with them, and its running child runs (nested meshes)
 * are cancelled too. Steps already running anywhere are stopped: workers hear the run's end on the
 * live-update channel (runtime/worker.ts) and through their lease renewals (process/lease.ts), and
 * abort the step's signal (HTTP and agent calls, SQL queries, code sandboxes, MCP tool calls).
 */
import { sql } from 'drizzle-orm';
import { approvalItemId } from '../lifecycle/park-approval';
import { EngineError, RunNotFoundError } from '../kernel/errors';
import { eventsChannel, recordEvents, type EngineEvent } from '../events/outbox';
import type { Engine } from '../kernel/engine';
import { afterRunsEnded } from '../members/mesh/resume';
import { rows, textArray, type Queryable } from '../kernel/sql';

/** The run has already ended, so there is nothing to cancel (HTTP 409). */
export class RunEndedAlreadyError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(runId: string, status: string) {
    super('run_ended', `run ${runId} has already ended (${status}); there is nothing to cancel`);
  }
}

/** Who cancels which run, and why (optional, shown on the run). */
export interface CancelRunInput {
  runId: string;
  /** The signed-in person (users.id), when a person cancels. */
  userId?: string | undefined;
  reason?: string | undefined;
}

/** What {@link cancelRun} did. */
export interface CancelRunResult {
  runId: string;
  status: 'cancelled';
  /** This run and its child runs that were cancelled. */
  runs: string[];
  /** Open messages set aside as `cancelled`, over all those runs. */
  messages: number;
}

/**
 * Cancels a running, stalled or queued run and its running child runs, in one transaction; then
 * tells the workers at once (a best-effort publish; the event outbox and the lease renewals also carry it).
 * @throws RunNotFoundError; RunEndedAlreadyError when the run has ended.
 */
export async function cancelRun(engine: Engine, input: CancelRunInput): Promise<CancelRunResult> {
  const who = input.userId
    ? ((await rows<{ name: string }>(engine.db, sql`select name from users where id = ${input.userId}`))[0]?.name ?? 'someone')
    : 'the system';
  const reason = input.reason?.trim() ?? '';
  const sentence = `Cancelled by ${who}${reason ? `: ${reason}` : ''}.`;
  const result = await engine.db.transaction(async (tx) => {
    const [run] = await rows<{ status: string }>(tx, sql`select status from runs where id = ${input.runId} for update`);
    if (!run) throw new RunNotFoundError(input.runId);
    if (!['running', 'stalled', 'queued'].includes(run.status)) throw new RunEndedAlreadyError(input.runId, run.status);
    const ended = await endRuns(tx, [input.runId], sentence);
    const children = await cancelChildRuns(tx, [input.runId], `Cancelled with its parent run ${input.runId}.`);
    // A cancelled child run fails the parent waiting for it (members/mesh/resume.ts).
    await afterRunsEnded(tx, [input.runId]);
    return { runs: [...ended.runs, ...children.runs], messages: ended.messages + children.messages };
  });
  await announceRunEnds(engine, result.runs.map((runId) => ({ kind: 'run.status', runId, status: 'cancelled' })));
  return { runId: input.runId, status: 'cancelled', ...result };
}

/**
 * Inside `tx`: cancels the running or stalled child runs (nested meshes) of `parentIds`, all the
 * way down. Used when a run is cancelled and when it fails (lifecycle/finalize.ts `failRun`).
 * @returns the child runs it cancelled and how many of their messages.
 */
export async function cancelChildRuns(tx: Queryable, parentIds: readonly string[], sentence: string): Promise<{ runs: string[]; messages: number }> {
  if (parentIds.length === 0) return { runs: [], messages: 0 };
  const children = await rows<{ id: string }>(
    tx,
    sql`with recursive tree(id) as (
           select id from runs where parent_run_id = any(${textArray(parentIds)}) and status in ('running', 'stalled', 'queued')
           union
           select r.id from runs r join tree t on r.parent_run_id = t.id where r.status in ('running', 'stalled', 'queued'))
        select id from tree`,
  );
  if (children.length === 0) return { runs: [], messages: 0 };
  return endRuns(tx, children.map((c) => c.id), sentence);
}

async function endRuns(tx: Queryable, runIds: readonly string[], sentence: string): Promise<{ runs: string[]; messages: number }> {
  const ended = await rows<{ id: string; mesh_id: string }>(
    tx,
    sql`update runs set status = 'cancelled', cause = null, cause_member = null, cause_message = ${sentence},
               ended_at = now(), moved_at = now()
         where id = any(${textArray(runIds)}) and status in ('running', 'stalled', 'queued')
     returning id, mesh_id`,
  );
  const ids = ended.map((r) => r.id);
  if (ids.length === 0) return { runs: [], messages: 0 };
  const msgs = await rows<{ id: string }>(
    tx,
    sql`update messages set status = 'cancelled', finished_at = now(), lease_until = null
         where run_id = any(${textArray(ids)}) and status in ('pending', 'running', 'parked')
     returning id`,
  );
  await tx.execute(
    sql`update service_jobs set status = 'expired', error = 'its run was cancelled', finished_at = now()
         where run_id = any(${textArray(ids)}) and status in ('waiting', 'claimed')`,
  );
  const approvals = await rows<{ id: string; mesh_id: string }>(
    tx,
    sql`update approvals set status = 'cancelled', decided_at = now(), comment = ${sentence}
         where run_id = any(${textArray(ids)}) and status = 'pending'
     returning id, mesh_id`,
  );
  if (approvals.length > 0) {
    const items = approvals.map((a) => approvalItemId(a.id));
    await tx.execute(
      sql`update action_items set state = 'resolved', resolved_at = now(), resolution = ${sentence}, updated_at = now()
           where id = any(${textArray(items)}) and state <> 'resolved'`,
    );
    await tx.execute(
      sql`insert into action_item_history (item_id, action, detail)
          select x, 'resolved', ${JSON.stringify({ reason: sentence })}::jsonb from unnest(${textArray(items)}) as x`,
    );
  }
  await recordEvents(tx, [
    ...ended.map((r) => ({ kind: 'run.status' as const, runId: r.id, meshId: r.mesh_id, status: 'cancelled' })),
    ...approvals.map((a) => ({ kind: 'item.changed' as const, itemId: approvalItemId(a.id), meshId: a.mesh_id, status: 'resolved' })),
  ]);
  return { runs: ids, messages: msgs.length };
}

/**
 * Publishes run ends on the live-update channel right away, so workers stop the runs' steps without
 * waiting for the orchestrator's next event pass. Best effort: the event outbox publishes the same
 * events (at least once), and lease renewals notice the end as well.
 */
export async function announceRunEnds(engine: Engine, events: readonly EngineEvent[]): Promise<void> {
  if (events.length === 0) return;
  try {
    await engine.redis.publish(eventsChannel(engine.config.prefix), JSON.stringify({ events }));
  } catch (err) {
    engine.log.warn('could not announce run ends now; the event outbox carries them', { error: err instanceof Error ? err.message : String(err) });
  }
}
