/**
 * The engine's side of the Action Center: when a run fails or stalls, its (mesh, cause) group's
 * open item takes it in (or a new item opens), in the same transaction as the failure. Called from
 * `failRun` (process/run-end.ts) and the stall detector (runtime/sweep.ts), never from a page load.
 */
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Cause } from '@trellis/mesh/causes';
import { recordEvents } from '../events/outbox';
import { rows, type Queryable } from '../kernel/sql';

/** What the group item records of the failure: the cause, where, and the detail. */
export interface GroupFailure {
  cause: Cause;
  member?: string | undefined;
  memberLabel?: string | undefined;
  detail: string;
}

/**
 * Adds the run to the open failure item of its mesh and cause (opening one when none is open),
 * records `opened` / `run_added` in the item's history and queues the live-update events.
 * Idempotent per (item, run): a second call for the same run adds nothing.
 * @returns the item id, or null when there is no such run.
 */
export async function recordRunFailure(db: Queryable, runId: string, failure: GroupFailure): Promise<string | null> {
  const [item] = await rows(
    db,
    sql`insert into action_items (id, kind, mesh_id, mesh_name, cause, member, member_label, detail)
        select ${randomUUID()}, 'failure', r.mesh_id, r.mesh_name, ${failure.cause}, ${failure.member ?? null},
               ${failure.memberLabel ?? null}, ${failure.detail}
          from runs r where r.id = ${runId}
        on conflict (mesh_id, cause) where kind = 'failure' and state <> 'resolved'
        do update set member = excluded.member, member_label = excluded.member_label, detail = excluded.detail,
                      mesh_name = excluded.mesh_name, last_seen = now(), updated_at = now()
        returning id, (xmax = 0) as created, mesh_id`,
    z.object({ id: z.string(), created: z.boolean(), mesh_id: z.string() }),
  );
  if (!item) return null;
  const added = await rows(
    db,
    sql`insert into action_item_runs (item_id, run_id) values (${item.id}, ${runId})
        on conflict do nothing returning run_id`,
    z.object({ run_id: z.string() }),
  );
  if (added.length > 0) {
    await db.execute(
      sql`update action_items set run_count = run_count + 1 where id = ${item.id}`,
    );
  }
  const history = [
    ...(item.created ? [{ action: 'opened', detail: { cause: failure.cause } }] : []),
    ...(added.length > 0 ? [{ action: 'run_added', detail: { runId } }] : []),
  ];
  if (history.length > 0) {
    await db.execute(
      sql`insert into action_item_history (item_id, action, detail)
          select ${item.id}, action, detail from json_to_recordset(${JSON.stringify(history)}::json) as x(action text, detail jsonb)`,
    );
  }
  await recordEvents(db, [
    { kind: 'run.failed', runId, meshId: item.mesh_id, status: failure.cause === 'stalled' ? 'stalled' : 'failed' },
    { kind: 'item.changed', itemId: item.id, meshId: item.mesh_id },
  ]);
  return item.id;
}
