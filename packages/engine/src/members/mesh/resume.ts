/**
 * When a child run ends, its parent's parked message goes on: a child that ended `done` continues
 * the parent with its output (published like any member's); any other end fails the parent
 * message and run with the child's cause, naming the child run. The mesh kind's run-end hook, right
 * after a run's status changes (the fast path) and by the orchestrator's sweep (the safety net for
 * a process that stopped in between); both are idempotent, as the parent must still be parked.
 */
import { RUN_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { isCause, type Cause } from '@trellis/mesh/causes';
import { rows, textArray, type Queryable } from '../../kernel/sql';
import type { RunEnd, RunEndActions, SweepContext } from '../types';
import { msgStatus, runStatuses } from '../../kernel/statuses';

/** A child run that ended, with what its parent needs. */
export const EndedChild = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  cause: z.string().nullable(),
  cause_message: z.string().nullable(),
  output: z.unknown(),
  mesh_name: z.string(),
  parent_run_id: z.string(),
  parent_message_id: z.string(),
});
export type EndedChild = z.output<typeof EndedChild>;

const CHILD_COLUMNS = sql`c.id, c.status, c.cause, c.cause_message, c.output, c.mesh_name, c.parent_run_id, c.parent_message_id`;

/**
 * The mesh kind's run-end hook: for the runs just ended that are child runs, fails their parents (in
 * the transaction the runs ended in, if any) or, when given the engine, continues them.
 * Cheap for top-level runs: one primary-key lookup, only when some run ended.
 */
export async function afterRunsEnded(end: RunEnd): Promise<void> {
  const { db, engine, runIds } = end;
  if (runIds.length === 0) return;
  const children = await rows(
    db,
    sql`select ${CHILD_COLUMNS} from runs c
         where c.id = any(${textArray(runIds)}) and c.parent_message_id is not null
           and c.status not in ${runStatuses('running', 'stalled', 'queued')}`,
    EndedChild,
  );
  if (children.length === 0) return;
  for (const child of children.filter((c) => c.status !== 'done')) await failParent(end, db, child);
  const done = children.filter((c) => c.status === 'done');
  if (!engine) return;
  for (const child of done) {
    try {
      await end.resumeParked(engine, child.parent_run_id, child.parent_message_id, child.output ?? {});
    } catch (err) {
      // The child's end is recorded; the orchestrator's sweep continues the parent.
      engine.log.warn('could not continue the parent of a child run yet', { run: child.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/**
 * The mesh kind's sweep: children that ended while their parent message is still parked (a process
 * stopped between the child's end and the parent's continuation). At most 100 per pass.
 */
export async function resumeEndedChildren(ctx: SweepContext): Promise<void> {
  const { engine } = ctx;
  const found = await rows(
    engine.db,
    sql`select ${CHILD_COLUMNS}
          from runs p
          join messages m on m.run_id = p.id and m.status = ${msgStatus('parked')}
          join runs c on c.parent_message_id = m.id
         where p.status in ${runStatuses('running', 'stalled')} and c.status not in ${runStatuses('running', 'stalled', 'queued')}
         limit 100`,
    EndedChild,
  );
  for (const child of found) {
    // The parent continues with the child's output (`{}` when the child produced none).
    if (child.status === 'done') await ctx.resumeParked(engine, child.parent_run_id, child.parent_message_id, child.output ?? {});
    else await failParent(ctx, engine.db, child);
  }
}

/** Sets the parked parent message aside as `dead` and fails its run with the child's cause. */
async function failParent(actions: RunEndActions, db: Queryable, child: EndedChild): Promise<void> {
  const cause: Cause = child.cause && isCause(child.cause) ? child.cause : 'step_code_failed';
  const why = child.cause_message ?? `it ended ${child.status}`;
  const detail = `nested mesh ${child.mesh_name} failed in child run ${child.id}: ${why}`;
  const [msg] = await rows(
    db,
    sql`update messages set status = ${msgStatus('dead')}, error = ${detail}, finished_at = now()
         where id = ${child.parent_message_id} and status = ${msgStatus('parked')}
     returning run_id, member`,
    z.object({ run_id: z.string(), member: z.string() }),
  );
  if (!msg) return;
  await actions.failRun(db, msg.run_id, { cause, member: msg.member, detail });
}
