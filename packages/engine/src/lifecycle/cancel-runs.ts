/** Cancelling runs inside a transaction: a run with its open work, and the child runs below it. */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../events/outbox';
import { rows, textArray, type Queryable } from '../kernel/sql';
import { approvalItemId } from './park-approval';
import { approvalStatus, jobStatus, jobStatuses, msgStatus, msgStatuses, runStatus, runStatuses } from '../kernel/statuses';

/**
 * Inside `tx`: cancels the running or stalled child runs (nested meshes) of `parentIds`, all the
 * way down. Used when a run is cancelled and when it fails (process/run-end.ts `failRun`).
 * @returns the child runs it cancelled and how many of their messages.
 */
export async function cancelChildRuns(tx: Queryable, parentIds: readonly string[], sentence: string): Promise<{ runs: string[]; messages: number }> {
  if (parentIds.length === 0) return { runs: [], messages: 0 };
  const children = await rows(
    tx,
    sql`with recursive tree(id) as (
           select id from runs where parent_run_id = any(${textArray(parentIds)}) and status in ${runStatuses('running', 'stalled', 'queued')}
           union
           select r.id from runs r join tree t on r.parent_run_id = t.id where r.status in ${runStatuses('running', 'stalled', 'queued')})
        select id from tree`,
    z.object({ id: z.string() }),
  );
  if (children.length === 0) return { runs: [], messages: 0 };
  return endRuns(tx, children.map((c) => c.id), sentence);
}

/**
 * Inside `tx`: cancels `runIds` (running, stalled or queued) with `sentence`: their open messages,
 * service jobs and pending approvals too.
 * @returns the runs it cancelled and how many of their messages.
 */
export async function endRuns(tx: Queryable, runIds: readonly string[], sentence: string): Promise<{ runs: string[]; messages: number }> {
  const ended = await rows(
    tx,
    sql`update runs set status = ${runStatus('cancelled')}, cause = null, cause_member = null, cause_message = ${sentence},
               ended_at = now(), moved_at = now()
         where id = any(${textArray(runIds)}) and status in ${runStatuses('running', 'stalled', 'queued')}
     returning id, mesh_id`,
    z.object({ id: z.string(), mesh_id: z.string() }),
  );
  const ids = ended.map((r) => r.id);
  if (ids.length === 0) return { runs: [], messages: 0 };
  const msgs = await rows(
    tx,
    sql`update messages set status = ${msgStatus('cancelled')}, finished_at = now(), lease_until = null
         where run_id = any(${textArray(ids)}) and status in ${msgStatuses('pending', 'running', 'parked')}
     returning id`,
    z.object({ id: z.string() }),
  );
  await tx.execute(
    sql`update service_jobs set status = ${jobStatus('expired')}, error = 'its run was cancelled', finished_at = now()
         where run_id = any(${textArray(ids)}) and status in ${jobStatuses('waiting', 'claimed')}`,
  );
  const approvals = await rows(
    tx,
    sql`update approvals set status = ${approvalStatus('cancelled')}, decided_at = now(), comment = ${sentence}
         where run_id = any(${textArray(ids)}) and status = ${approvalStatus('pending')}
     returning id, mesh_id`,
    z.object({ id: z.string(), mesh_id: z.string() }),
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
