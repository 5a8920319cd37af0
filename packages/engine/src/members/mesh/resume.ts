/**
 * When a child run ends, its parent's parked message goes on: a child that ended `done` continues
 * the parent with its output (published like any member's); any other end fails the parent
 * message and run with the child's cause, naming the child run. Called by the run finalizer right
 * after a run's status changes (the fast path) and by the orchestrator's sweep (the safety net for
 * a process that stopped in between); both are idempotent, as the parent must still be parked.
 */
import { sql } from 'drizzle-orm';
import { isCause, type Cause } from '@trellis/mesh/causes';
import type { Engine } from '../../kernel/engine';
import { failRun } from '../../lifecycle/finalize';
import { rows, textArray, type Queryable } from '../../kernel/sql';
import { continueParked, planOfMessage, publishCommitted } from '../../process/continue';
import { engineFor } from '../service/registry-engine';

/** A child run that ended, with what its parent needs. */
export interface EndedChild {
  id: string;
  status: string;
  cause: string | null;
  cause_message: string | null;
  output: unknown;
  mesh_name: string;
  parent_run_id: string;
  parent_message_id: string;
}

const CHILD_COLUMNS = sql`c.id, c.status, c.cause, c.cause_message, c.output, c.mesh_name, c.parent_run_id, c.parent_message_id`;

/**
 * The finalizer's hook: for the runs just ended that are child runs, fails their parents (in the
 * caller's transaction, if any) or, when the engine owning `db` is known, continues them.
 * Cheap for top-level runs: one primary-key lookup, only when some run ended.
 */
export async function afterRunsEnded(db: Queryable, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  const children = await rows<EndedChild>(
    db,
    sql`select ${CHILD_COLUMNS} from runs c
         where c.id = any(${textArray(runIds)}) and c.parent_message_id is not null
           and c.status not in ('running', 'stalled', 'queued')`,
  );
  if (children.length === 0) return;
  for (const child of children.filter((c) => c.status !== 'done')) await failParent(db, child);
  const engine = engineFor(db);
  const done = children.filter((c) => c.status === 'done');
  if (!engine) return;
  for (const child of done) {
    try {
      await continueParent(engine, child);
    } catch (err) {
      // The child's end is recorded; the orchestrator's sweep continues the parent.
      engine.log.warn('could not continue the parent of a child run yet', { run: child.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/**
 * Sweep: children that ended while their parent message is still parked (a process stopped
 * between the child's end and the parent's continuation). At most 100 per pass.
 * @returns how many parents it moved on.
 */
export async function resumeEndedChildren(engine: Engine): Promise<number> {
  const found = await rows<EndedChild>(
    engine.db,
    sql`select ${CHILD_COLUMNS}
          from runs p
          join messages m on m.run_id = p.id and m.status = 'parked'
          join runs c on c.parent_message_id = m.id
         where p.status in ('running', 'stalled') and c.status not in ('running', 'stalled', 'queued')
         limit 100`,
  );
  for (const child of found) {
    if (child.status === 'done') await continueParent(engine, child);
    else await failParent(engine.db, child);
  }
  return found.length;
}

/** Continues the parent message with the child's output (`{}` when the child produced none). */
export async function continueParent(engine: Engine, child: EndedChild): Promise<void> {
  const plan = await planOfMessage(engine, child.parent_run_id);
  if (!plan) return;
  const result = await engine.db.transaction((tx) => continueParked(tx, engine, plan, child.parent_message_id, child.output ?? {}));
  await publishCommitted(engine, result);
}

/** Sets the parked parent message aside as `dead` and fails its run with the child's cause. */
async function failParent(db: Queryable, child: EndedChild): Promise<void> {
  const cause: Cause = child.cause && isCause(child.cause) ? child.cause : 'step_code_failed';
  const why = child.cause_message ?? `it ended ${child.status}`;
  const detail = `nested mesh ${child.mesh_name} failed in child run ${child.id}: ${why}`;
  const [msg] = await rows<{ run_id: string; member: string }>(
    db,
    sql`update messages set status = 'dead', error = ${detail}, finished_at = now()
         where id = ${child.parent_message_id} and status = 'parked'
     returning run_id, member`,
  );
  if (!msg) return;
  await failRun(db, msg.run_id, { cause, member: msg.member, detail });
}
