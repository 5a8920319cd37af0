import { index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

/**
 * A run's re-opens. Attempt 1 is the run's first start (the `runs` row itself); each re-open adds
 * the next attempt here. `mesh_version` is the version that attempt runs on (the run's pinned one or
 * the latest saved one); `members` are the member ids whose dead-lettered, lost, cancelled or stalled
 * messages it re-published; `republished` counts those messages. An attempt's outcome is the
 * `previous_status`/`previous_cause` of the next attempt, or the run's own state for the last one,
 * so nothing has to be written when a run ends.
 */
export const runAttempts = pgTable(
  'run_attempts',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** `pinned` or `latest`: the choice the person made. */
    versionChoice: text('version_choice').notNull(),
    meshVersion: integer('mesh_version').notNull(),
    /** The version the run was on before this attempt. */
    previousVersion: integer('previous_version').notNull(),
    members: jsonb('members').$type<string[]>().notNull().default([]),
    republished: integer('republished').notNull().default(0),
    /** The run's state and cause when it was re-opened (what this attempt set out to repair). */
    previousStatus: text('previous_status').notNull(),
    previousCause: text('previous_cause'),
    previousCauseMember: text('previous_cause_member'),
    previousCauseMessage: text('previous_cause_message'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('run_attempts_run_attempt').on(t.runId, t.attempt), index('run_attempts_created_idx').on(t.createdAt)],
);
