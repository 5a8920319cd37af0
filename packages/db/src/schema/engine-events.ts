import { bigserial, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Outbox of live-update events: written in the transaction that made the change, published on
 * Redis pub/sub by the orchestrator and deleted (at-least-once). `kind`: `run.status`,
 * `run.failed`, `item.changed`, `approval.changed`.
 */
export const engineEvents = pgTable('engine_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull(),
  runId: text('run_id'),
  itemId: text('item_id'),
  meshId: text('mesh_id'),
  status: text('status'),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
});
