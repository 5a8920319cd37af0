import { sql } from 'drizzle-orm';
import type { MessageStatus } from './statuses';
import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The message trail: every message is a row here and a job in BullMQ (`jobId` = `id`).
 * `id` is deterministic: sha256(runId, parentId, channel, index) (DESIGN.md §3).
 * `status`: pending | running | done | dead | lost | parked | cancelled | filtered. A `filtered` row is
 * not a message that was sent: it records a part that routing dropped (a condition filtered it, or
 * no channel of its member matched), naming the member and the conditions in `error`, so the trail
 * and the joins downstream account for it.
 * `lease_*`: the lease a heavy member's delivery holds while its step runs (owner, fencing token,
 * expiry), renewed while it runs; another delivery waits until it ends, and a commit carrying a stale
 * token is refused.
 * `frames`: the split stack, innermost last: `[{ split, index, count }]`; a combine pops the last.
 * `void`: the message stands for a split with zero parts, so a combine downstream still fires once.
 */
export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    member: text('member').notNull(),
    /** The worker pool (BullMQ queue) the member runs on; the outbox relay re-adds jobs there. */
    pool: text('pool').notNull().default('default'),
    /** The channel it arrived on (`null` for the head's input). */
    channel: text('channel'),
    seq: integer('seq').notNull().default(0),
    parentId: text('parent_id'),
    depth: integer('depth').notNull().default(0),
    frames: jsonb('frames').notNull().default([]),
    void: boolean('void').notNull().default(false),
    payload: jsonb('payload').notNull(),
    /** What a leaf member (no outgoing channel) produced; children carry everyone else's output. */
    output: jsonb('output'),
    status: text('status').$type<MessageStatus>().notNull().default('pending'),
    /** Deliveries so far in the run's current attempt (a redelivery after a lapsed claim counts again; a re-open starts again at 0). */
    attempts: integer('attempts').notNull().default(0),
    /** Times the outbox relay had to re-add the job because Redis no longer had it. */
    requeues: integer('requeues').notNull().default(0),
    error: text('error'),
    /** The worker holding the lease of a running heavy message (`<host>/<pid>/<n>`). */
    leaseOwner: text('lease_owner'),
    /** The fencing token of that lease: the commit that ends the step must carry it. */
    leaseToken: text('lease_token'),
    /** When the lease lapses unless renewed. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** In-process bus only (engine/src/runtime/local-bus.ts): not claimable before this (backoff, a wait). */
    notBefore: timestamp('not_before', { withTimezone: true }),
    /** In-process bus only: the delivery claim's expiry (BullMQ's job lock); null when unclaimed. */
    busUntil: timestamp('bus_until', { withTimezone: true }),
    /** In-process bus only: failed deliveries so far (BullMQ's attemptsMade). */
    busTries: integer('bus_tries').notNull().default(0),
    /** In-process bus only: claims that lapsed with their holder gone (BullMQ's stalled counter). */
    busStalls: integer('bus_stalls').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    // Few indexes on purpose: every status change rewrites an entry in each of them (no HOT update
    // is possible when an indexed column changes), and each message changes status twice.
    index('messages_run_idx').on(t.runId),
    // "Is anything in this run still open?" is asked after every commit; the partial index keeps the
    // answer a probe into the few open rows instead of a scan over thousands of done ones.
    index('messages_open_idx')
      .on(t.runId)
      .where(sql`${t.status} not in ('done', 'filtered')`),
    // The outbox relay walks pending and running rows by age across all runs.
    index('messages_outbox_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} in ('pending', 'running')`),
    // The in-process bus claims open rows of a pool that are due.
    index('messages_bus_idx')
      .on(t.pool, t.notBefore)
      .where(sql`${t.status} in ('pending', 'running')`),
  ],
);
