import { boolean, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The install's egress policy, admin-managed (docs/security.md): the hosts steps, agent providers,
 * tool servers and code may reach. `pattern` is `*` (any public host), `*.example.com`, `name` or
 * `name:port`. `internal` (exact hosts only) also lets that host resolve to a loopback, private or
 * link-local address, which is otherwise refused. No rows: the TRELLIS_EGRESS_ALLOW default holds.
 */
export const egressRules = pgTable('egress_rules', {
  pattern: text('pattern').primaryKey(),
  internal: boolean('internal').notNull().default(false),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
