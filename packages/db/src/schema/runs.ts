import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One input through one mesh version. `status`: queued | running | done | failed | stalled.
 * `cause` is one of the cause list (packages/mesh causes), set when the run fails or stalls.
 */
export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    meshId: text('mesh_id').notNull(),
    meshName: text('mesh_name').notNull(),
    meshVersion: integer('mesh_version').notNull(),
    status: text('status').notNull().default('queued'),
    cause: text('cause'),
    /** The member the cause concerns, when there is one. */
    causeMember: text('cause_member'),
    /** One plain sentence naming the member and the detail. */
    causeMessage: text('cause_message'),
    inputName: text('input_name'),
    /** The head message's payload. */
    input: jsonb('input').notNull(),
    /** Output of the members with no outgoing channel (a leaf's payload). */
    output: jsonb('output'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** Last time any of the run's messages moved; the stall detector reads it. */
    movedAt: timestamp('moved_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('runs_status_created_idx').on(t.status, t.createdAt),
    index('runs_mesh_created_idx').on(t.meshId, t.createdAt),
  ],
);
