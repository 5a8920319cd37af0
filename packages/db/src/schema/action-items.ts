import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, bigserial, jsonb } from 'drizzle-orm/pg-core';

/**
 * The Action Center: one item per open group of failed or stalled runs of a mesh with one cause
 * (`kind = 'failure'`), and one per approval request (`kind = 'approval'`). Items are written by
 * the engine when runs fail or stall and when a member parks its output for approval, never by a
 * page load. `state`: open | acknowledged | resolved. At most one unresolved failure item exists per
 * (mesh, cause); once resolved, the next failure opens a new one.
 * `member`, `member_label` and `detail` are those of the latest run the item took in; the sentence
 * is built from them and `run_count` (packages/mesh causes `causeSentence`).
 */
export const actionItems = pgTable(
  'action_items',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    meshId: text('mesh_id').notNull(),
    meshName: text('mesh_name').notNull(),
    cause: text('cause'),
    member: text('member'),
    memberLabel: text('member_label'),
    detail: text('detail'),
    /** For `kind = 'approval'`: the approval it stands for (approvals.id). */
    approvalId: text('approval_id'),
    state: text('state').notNull().default('open'),
    /** User id of the person it is assigned to. */
    assignee: text('assignee'),
    runCount: integer('run_count').notNull().default(0),
    firstSeen: timestamp('first_seen', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedBy: text('resolved_by'),
    resolution: text('resolution'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('action_items_open_group_idx')
      .on(t.meshId, t.cause)
      .where(sql`${t.kind} = 'failure' and ${t.state} <> 'resolved'`),
    uniqueIndex('action_items_approval_idx').on(t.approvalId),
    index('action_items_state_seen_idx').on(t.state, t.lastSeen),
  ],
);

/** The runs an action item covers, in the order it took them in. */
export const actionItemRuns = pgTable(
  'action_item_runs',
  {
    itemId: text('item_id').notNull(),
    runId: text('run_id').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.itemId, t.runId] }), index('action_item_runs_run_idx').on(t.runId)],
);

/**
 * Every change to an action item, by whom and when: `opened`, `run_added` (by the engine, actor
 * null), `acknowledged`, `assigned`, `reopened`, `resolved`, `approved`, `rejected`.
 * `detail` holds what the action carried (assignee, comment, run ids).
 */
export const actionItemHistory = pgTable(
  'action_item_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    itemId: text('item_id').notNull(),
    action: text('action').notNull(),
    actor: text('actor'),
    detail: jsonb('detail'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('action_item_history_item_idx').on(t.itemId, t.id)],
);
