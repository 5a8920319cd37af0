import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * A member marked `approval: 'required'` parks its output here instead of publishing it: its
 * message is `parked` and `children` holds the child rows it would have inserted (and `leaf` the
 * output of a leaf member). `id` is the parked message's id, so a redelivery parks nothing twice;
 * a message parked again after a decision (its run re-opened after a rejection) sets the row back
 * to pending, and the earlier decision stays in the item's history (engine lifecycle/park-approval.ts).
 * `status`: pending | approved | rejected; `decided_by` (user id), `decided_at` and `comment`
 * record who decided what and when.
 */
export const approvals = pgTable(
  'approvals',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    meshId: text('mesh_id').notNull(),
    meshName: text('mesh_name').notNull(),
    member: text('member').notNull(),
    memberLabel: text('member_label'),
    children: jsonb('children').notNull(),
    leaf: jsonb('leaf'),
    status: text('status').notNull().default('pending'),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    comment: text('comment'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('approvals_run_idx').on(t.runId), index('approvals_status_idx').on(t.status, t.createdAt)],
);
