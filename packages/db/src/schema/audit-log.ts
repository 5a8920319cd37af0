import { bigint, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The sealed audit trail: one row per privileged action, written in the same transaction as the
 * action. Append-only (a trigger refuses UPDATE and DELETE, migration 0009) and hash-chained:
 * `hash` = SHA-256 hex of `prev_hash` followed by the entry's canonical JSON (engine audit/chain.ts),
 * so editing, removing or inserting a row breaks every hash after it. `seq` counts from 1 with no gaps.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull(),
    /** Who did it: a user id, or null for the system or an unknown caller (e.g. a failed sign-in). */
    actorId: text('actor_id'),
    actorEmail: text('actor_email'),
    /** e.g. `user.add`, `user.role`, `token.revoke`, `sign_in.failed`. */
    action: text('action').notNull(),
    /** What it was done to: a user's email, a token id, a run id. */
    target: text('target'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [index('audit_log_action_idx').on(t.action, t.seq), index('audit_log_actor_idx').on(t.actorEmail, t.seq)],
);
