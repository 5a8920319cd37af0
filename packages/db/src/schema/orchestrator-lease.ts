import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Leases on the orchestrator's singleton duties (engine runtime/leader.ts), one row per lease
 * (`orchestrator` today). `holder` is the process holding it (host, pid and a random suffix);
 * `token` is the fencing token, incremented on every takeover, never on a renewal; the lease is
 * held until `expires_at` (database clock) unless renewed. A duty's writes lock this row and check
 * their token in their own transaction (engine kernel/fence.ts), so a paused old leader whose lease
 * was taken over writes nothing.
 */
export const orchestratorLease = pgTable('orchestrator_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  token: bigint('token', { mode: 'bigint' }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  /** When the current holder took the lease over (not moved by renewals). */
  acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
});
