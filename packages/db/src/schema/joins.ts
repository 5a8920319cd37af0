import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One keyed join per (run, combine member, key); `fired_at` is set exactly once.
 * `key` is the id of the split that fanned out (the frame's `split`); `expected` travels with the split.
 * `received` counts distinct parts, arrived or skipped; it is only bumped when a part row is new, under
 * the row lock taken by the upsert, so concurrent last parts are serialized and exactly one sees
 * `received = expected`. `skipped` counts the parts among them that routing dropped before they came.
 */
export const joins = pgTable(
  'joins',
  {
    runId: text('run_id').notNull(),
    member: text('member').notNull(),
    key: text('key').notNull(),
    /** Parts expected, carried by the split frame. */
    expected: integer('expected').notNull(),
    /** Distinct parts stored so far. */
    received: integer('received').notNull().default(0),
    /** Parts counted as skipped: a condition (or no matching channel) dropped them upstream. */
    skipped: integer('skipped').notNull().default(0),
    firedAt: timestamp('fired_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.member, t.key] }),
    // "Has every join of this run fired?" is asked whenever a run may end (process/run-end.ts).
    index('joins_unfired_idx')
      .on(t.runId)
      .where(sql`${t.firedAt} is null`),
  ],
);

/**
 * The parts of a join, stored by message id: a redelivered id inserts nothing and counts once. A
 * skipped part (`skipped`) is stored under the id of its `filtered` trail row and has no payload
 * worth merging; the merge takes the arrived parts only, in `seq` order. `payload` is null for parts
 * written since migration 0013: a part's payload lives once, on its message row, and the merge reads
 * it from there (older rows keep theirs, and the merge prefers it).
 */
export const joinParts = pgTable(
  'join_parts',
  {
    runId: text('run_id').notNull(),
    member: text('member').notNull(),
    key: text('key').notNull(),
    messageId: text('message_id').notNull(),
    seq: integer('seq').notNull(),
    payload: jsonb('payload'),
    skipped: boolean('skipped').notNull().default(false),
  },
  (t) => [
    // A message id is unique across runs and a part reaches a combine under one key, so (message,
    // combine) identifies a part: a 100-byte key instead of the 230 of (run, member, key, message).
    primaryKey({ columns: [t.messageId, t.member] }),
    // The merge reads a key's parts; many parts share a key, which btree deduplication stores once.
    index('join_parts_key_idx').on(t.key),
  ],
);
