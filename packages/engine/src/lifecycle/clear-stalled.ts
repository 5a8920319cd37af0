/**
 * A stalled run that moves again is no longer the Action Center's concern: the open `stalled`
 * items holding it record that it moved (`run_moved`), and an item none of whose runs is still
 * stalled resolves itself (`resolved`, no actor, `detail.automatic`). Called in the transaction
 * that moves the run on (process/commit.ts) and when such a run ends done (process/run-end.ts).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../events/outbox';
import { rows, textArray, type Queryable } from '../kernel/sql';
import { runStatus } from '../kernel/statuses';

/** What an item resolved this way says. */
export const CLEARED = 'cleared automatically: its runs moved again';

/**
 * Records `run_moved` on the open stalled items holding `runIds` (which are no longer stalled)
 * and resolves those items that have no stalled run left.
 * @returns the ids of the items it resolved.
 */
export async function clearStalled(db: Queryable, runIds: readonly string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const held = await rows(
    db,
    sql`select air.item_id, air.run_id, ai.mesh_id
          from action_item_runs air
          join action_items ai on ai.id = air.item_id
         where air.run_id = any(${textArray(runIds)})
           and ai.kind = 'failure' and ai.cause = 'stalled' and ai.state <> 'resolved'`,
    z.object({ item_id: z.string(), run_id: z.string(), mesh_id: z.string() }),
  );
  if (held.length === 0) return [];
  const moved = JSON.stringify(held.map((h) => ({ item_id: h.item_id, detail: { runId: h.run_id } })));
  await db.execute(
    sql`insert into action_item_history (item_id, action, detail)
        select item_id, 'run_moved', detail from json_to_recordset(${moved}::json) as x(item_id text, detail jsonb)`,
  );
  const items = [...new Set(held.map((h) => h.item_id))];
  const resolved = await rows(
    db,
    sql`update action_items ai set state = 'resolved', resolved_at = now(), resolved_by = null, resolution = ${CLEARED}, updated_at = now()
         where ai.id = any(${textArray(items)}) and ai.state <> 'resolved'
           and not exists (select 1 from action_item_runs air join runs r on r.id = air.run_id
                            where air.item_id = ai.id and r.status = ${runStatus('stalled')})
     returning ai.id, ai.mesh_id`,
    z.object({ id: z.string(), mesh_id: z.string() }),
  );
  if (resolved.length > 0) {
    await db.execute(
      sql`insert into action_item_history (item_id, action, detail)
          select x, 'resolved', ${JSON.stringify({ automatic: true, resolution: CLEARED })}::jsonb from unnest(${textArray(resolved.map((r) => r.id))}) as x`,
    );
  }
  const meshOf = new Map(held.map((h) => [h.item_id, h.mesh_id]));
  await recordEvents(
    db,
    items.map((id) => ({ kind: 'item.changed' as const, itemId: id, meshId: meshOf.get(id) ?? null, ...(resolved.some((r) => r.id === id) ? { status: 'resolved' } : {}) })),
  );
  return resolved.map((r) => r.id);
}
