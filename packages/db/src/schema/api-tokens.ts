import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * API tokens for scripts and other systems: `Authorization: Bearer <token>` on REST and SSE.
 * Personal tokens belong to a person; service tokens to a service account (a users row of kind
 * `service`, which cannot sign in). Only a SHA-256 of the token is stored (32 random bytes, so a
 * plain hash is enough); `prefix` helps a person tell tokens apart. A token acts with the lesser of
 * its owner's role and its `scope` (read < run < operate < admin).
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    scope: text('scope').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('api_tokens_user_idx').on(t.userId), check('api_tokens_scope_known', sql`${t.scope} in ('read', 'run', 'operate', 'admin')`)],
);
