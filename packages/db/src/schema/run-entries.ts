import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * How a run was asked for (engine runs/start-entry-run.ts): which entry point (`rest`, `webhook`,
 * `schedule`, `mcp`, `a2a`, `event`, `email`, `upload`, `cli`), by whom, and the idempotency key
 * the caller gave. The unique index on the key is what makes "the same key returns the same run"
 * hold under concurrent requests and across processes: the row is inserted in the transaction that
 * inserts the run, so a second request with the key rolls its run back and reads the first.
 * `fingerprint` is the SHA-256 of the request (mesh, version, input), so a key reused for a
 * different request is refused instead of answering with an unrelated run.
 */
export const runEntries = pgTable(
  'run_entries',
  {
    runId: text('run_id').primaryKey(),
    entry: text('entry').notNull(),
    idempotencyKey: text('idempotency_key'),
    fingerprint: text('fingerprint').notNull(),
    actorId: text('actor_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('run_entries_idempotency_key_idx').on(t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`)],
);
