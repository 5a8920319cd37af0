import { sql } from 'drizzle-orm';
import { boolean, check, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * This install's identity, one row. Its id is also written under the queue prefix in Redis
 * (`<prefix>:install`), binding the prefix to this database: a worker or orchestrator whose database
 * does not own the prefix it was given refuses to start (engine runtime/install.ts), so two installs
 * sharing one Redis can never take each other's jobs.
 */
export const installation = pgTable(
  'installation',
  {
    /** Always true: the primary key that keeps this table to one row. */
    singleton: boolean('singleton').primaryKey().default(true),
    id: text('id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('installation_one_row', sql`${t.singleton}`)],
);
