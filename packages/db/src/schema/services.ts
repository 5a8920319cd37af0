import { sql } from 'drizzle-orm';
import type { ServiceJobStatus } from './statuses';
import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Outside services allowed to claim parked jobs. Only a SHA-256 of the API key is stored (the key is
 * 32 random bytes, so a plain hash is enough); `keyPrefix` (the first characters) helps a person tell
 * keys apart.
 */
export const services = pgTable('services', {
  name: text('name').primaryKey(),
  keyHash: text('key_hash').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  createdBy: text('created_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One parked message waiting for an outside service. `id` is the message id (one job per message).
 * `status`: waiting | claimed | done | failed | expired. A claim holds a lease until `leaseUntil`;
 * a lapsed lease makes the job claimable again (at-least-once). A job still `waiting` at
 * `claimDeadline` expires and fails its run with `no_worker`.
 */
export const serviceJobs = pgTable(
  'service_jobs',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    member: text('member').notNull(),
    service: text('service').notNull(),
    status: text('status').$type<ServiceJobStatus>().notNull().default('waiting'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    claimDeadline: timestamp('claim_deadline', { withTimezone: true }).notNull(),
    claimedBy: text('claimed_by'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** Claims so far (a claim after a lapsed lease counts again). */
    claims: integer('claims').notNull().default(0),
    output: jsonb('output'),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    // The claim query: the oldest open job of one service.
    index('service_jobs_open_idx')
      .on(t.service, t.createdAt)
      .where(sql`${t.status} in ('waiting', 'claimed')`),
  ],
);
