import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The admin-managed store of secrets and named SQL connections (docs/security.md). `kind` is
 * `secret` (a value a step may send, e.g. an API key, only to the hosts in `hosts`) or
 * `connection` (a `postgres://…` URL a SQL step reaches by name). Values are AES-256-GCM
 * ciphertext (base64) with their 12-byte IV and 16-byte tag; `key_id` is the first 16 hex of the
 * SHA-256 of the key that sealed them, so a rotation can tell which rows it has re-sealed. No
 * column ever holds a plain value.
 */
export const secrets = pgTable(
  'secrets',
  {
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    ciphertext: text('ciphertext').notNull(),
    iv: text('iv').notNull(),
    tag: text('tag').notNull(),
    keyId: text('key_id').notNull(),
    /** Hosts (`name`, `name:port` or `*.domain`) the value may be sent to; empty for connections. */
    hosts: text('hosts').array().notNull().default(sql`'{}'::text[]`),
    createdBy: text('created_by').notNull(),
    updatedBy: text('updated_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.name] }), check('secrets_kind', sql`${t.kind} in ('secret', 'connection')`)],
);
