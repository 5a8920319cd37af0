import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The message trail: every message is a row here and a job in BullMQ (`jobId` = `id`).
 * `id` is deterministic: hash(runId, parentId, channel, index) (DESIGN.md §3).
 * `status`: pending | running | done | dead | lost | parked | cancelled.
 * `frames`: the split stack, innermost last: `[{ split, index, count }]`; a combine pops the last.
 * `void`: the message stands for a split with zero parts, so a combine downstream still fires once.
 */
export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    member: text('member').notNull(),
    /** The channel it arrived on (`null` for the head's input). */
    channel: text('channel'),
    seq: integer('seq').notNull().default(0),
    parentId: text('parent_id'),
    depth: integer('depth').notNull().default(0),
    frames: jsonb('frames').notNull().default([]),
    void: boolean('void').notNull().default(false),
    payload: jsonb('payload').notNull(),
    status: text('status').notNull().default('pending'),
    /** Deliveries so far (a redelivery after a lapsed claim counts again). */
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('messages_run_status_idx').on(t.runId, t.status),
    index('messages_run_member_idx').on(t.runId, t.member),
  ],
);
