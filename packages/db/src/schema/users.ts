import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * People who sign in. `password_hash` is `scrypt$<salt hex>$<hash hex>` (Node's crypto.scrypt, N=16384).
 * `session_version` is copied into every session at sign-in and checked on every request; raising it
 * (sign-out, role or password change, disable) ends all of the user's sessions at once.
 */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull().unique(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** `admin`, `designer`, `operator` or `viewer` (engine users/roles.ts). */
    role: text('role').notNull().default('viewer'),
    sessionVersion: integer('session_version').notNull().default(1),
    /** `person`, or `service` for an account that only API tokens act for (it cannot sign in). */
    kind: text('kind').notNull().default('person'),
    /** Set while the user may not sign in. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('users_role_known', sql`${t.role} in ('admin', 'designer', 'operator', 'viewer')`)],
);
