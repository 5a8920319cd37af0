import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** People who sign in. `password_hash` is `scrypt$<salt hex>$<hash hex>` (Node's crypto.scrypt, N=16384). */
export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  passwordHash: text('password_hash').notNull(),
  /** `admin` or `member`. */
  role: text('role').notNull().default('member'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
