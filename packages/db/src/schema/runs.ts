import { sql } from 'drizzle-orm';
import type { RunStatus } from './statuses';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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
    status: text('status').$type<RunStatus>().notNull().default('queued'),
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
    /** For a child run of a nested-mesh member: the parent run and the parked parent message. */
    parentRunId: text('parent_run_id'),
    parentMessageId: text('parent_message_id'),
    /** Messages the run has created, its head included: counted against TRELLIS_MAX_RUN_MESSAGES. */
    messageCount: integer('message_count').notNull().default(1),
    /**
     * When retention removed the run's messages and join parts (engine runtime/retention.ts); the
     * run row, its output and cause stay, and `summary` holds the counts the trail gave.
     */
    prunedAt: timestamp('pruned_at', { withTimezone: true }),
    /** The run's counts (`{ counts, memberCounts }`, engine runs/counts.ts), stored when its trail is pruned. */
    summary: jsonb('summary'),
    /**
     * The admission verdict taken when the run started (engine runs/admission.ts): `now`, `wait`
     * (resource, pool, what it waits behind, an estimate, a sentence) or `refused` (the cap); null
     * for runs started before admission existed.
     */
    admission: jsonb('admission'),
    /**
     * Urgent: the run's messages go on the urgent lane of every pool they reach (engine
     * kernel/priority.ts), ahead of normal work but within its reserved share. Set at start from
     * the mesh's `urgent`, or later by a person (engine runs/mark-urgent.ts).
     */
    urgent: boolean('urgent').notNull().default(false),
  },
  (t) => [
    index('runs_status_created_idx').on(t.status, t.createdAt),
    index('runs_mesh_created_idx').on(t.meshId, t.createdAt),
    // One child run per parked parent message (a redelivered park starts no second child).
    uniqueIndex('runs_parent_message_idx').on(t.parentMessageId).where(sql`${t.parentMessageId} is not null`),
    // The Runs tab (engine ops/search-runs.ts): newest first over everything, a cause (or a
    // severity, which is a set of causes) by time, ended and duration sorts, and prefix searches.
    index('runs_created_idx').on(t.createdAt, t.id),
    index('runs_cause_created_idx').on(t.cause, t.createdAt).where(sql`${t.cause} is not null`),
    index('runs_ended_idx').on(t.endedAt, t.id),
    index('runs_duration_idx').on(sql`(${t.endedAt} - coalesce(${t.startedAt}, ${t.createdAt}))`, t.id),
    // The urgent runs still open: the relay mirrors them into Redis (engine kernel/priority.ts).
    index('runs_urgent_idx')
      .on(t.id)
      .where(sql`${t.urgent} and ${t.status} in ('queued', 'running', 'stalled')`),
    index('runs_id_prefix_idx').on(t.id.op('text_pattern_ops')),
    index('runs_input_name_prefix_idx').on(sql`lower(${t.inputName}) text_pattern_ops`),
    // The exceptions feed's window: when a failed run ended, or a stalled one last moved.
    // The orchestrator's admission pass (engine runs/admission.ts): the runs whose wait has not ended.
    index('runs_admission_waiting_idx')
      .on(t.id)
      .where(sql`${t.admission} ->> 'verdict' = 'wait' and not (${t.admission} ? 'settledAt')`),
    index('runs_failed_at_idx')
      .on(sql`coalesce(${t.endedAt}, ${t.movedAt})`)
      .where(sql`${t.cause} is not null`),
  ],
);
