/**
 * Live-update events, written to the `engine_events` outbox in the transaction that made the change
 * and published on Redis pub/sub by the orchestrator ({@link pumpEvents} in ./pump). Small on
 * purpose: subscribers refetch what they show, so an event only says what moved.
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../kernel/sql';

/** What moved. `counts.moved` is added by the pump to every non-empty batch it publishes. */
export type EngineEventKind = 'run.status' | 'run.failed' | 'item.changed' | 'approval.changed' | 'counts.moved';

/** One event as published. */
export interface EngineEvent {
  kind: EngineEventKind;
  runId?: string | null;
  itemId?: string | null;
  meshId?: string | null;
  /** The run's new status for `run.status`, the item's state for `item.changed`. */
  status?: string | null;
}

/** Writes events into the outbox (nothing for an empty list). */
export async function recordEvents(db: Queryable, events: readonly EngineEvent[]): Promise<void> {
  if (events.length === 0) return;
  const list = JSON.stringify(
    events.map((e) => ({ kind: e.kind, run_id: e.runId ?? null, item_id: e.itemId ?? null, mesh_id: e.meshId ?? null, status: e.status ?? null })),
  );
  await db.execute(
    sql`insert into engine_events (kind, run_id, item_id, mesh_id, status)
        select kind, run_id, item_id, mesh_id, status
          from json_to_recordset(${list}::json) as x(kind text, run_id text, item_id text, mesh_id text, status text)`,
  );
}

/** The Redis pub/sub channel of an installation (its BullMQ prefix keeps installations apart). */
export function eventsChannel(prefix: string): string {
  return `${prefix}:events`;
}
