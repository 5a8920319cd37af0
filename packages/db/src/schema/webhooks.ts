import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Signed webhooks (engine webhooks/*): one endpoint per row, `POST /api/v1/hooks/{id}`, starting a
 * run of `mesh_id`'s latest version on each correctly signed request. The signing secret is not
 * here: it lives sealed in the secrets store under `secret_name` (so key rotation re-seals it), with
 * a host list that names no real host, so no step can send it anywhere. `callback_url`, when set,
 * receives each run's answer when it ends (`run_callbacks`), under the egress policy.
 */
export const webhooks = pgTable('webhooks', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  meshId: text('mesh_id').notNull(),
  secretName: text('secret_name').notNull(),
  callbackUrl: text('callback_url'),
  enabled: boolean('enabled').notNull().default(true),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Requests a webhook refused before any run was asked for: a missing, malformed or wrong signature,
 * a timestamp outside the 5-minute window, an unknown or disabled webhook. `webhook_id` is the id
 * the request named (it may name no webhook). Written outside any caller transaction, cheaply, so
 * a flood of forged requests costs one insert each and never the audit chain's lock.
 */
export const webhookRefusals = pgTable(
  'webhook_refusals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    webhookId: text('webhook_id').notNull(),
    reason: text('reason').notNull(),
    detail: text('detail').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_refusals_webhook_idx').on(t.webhookId, t.at)],
);

/**
 * A run's answer owed to a callback URL (an outbox row, written with the run's start): `waiting`
 * until the run ends, then sent (signed like the webhook's requests) by the orchestrator's callback
 * pass, retried with exponential backoff on failure; `delivered` or, after the last attempt, `failed`.
 * `lease_until` keeps two orchestrators from sending the same attempt at once.
 */
export const runCallbacks = pgTable(
  'run_callbacks',
  {
    runId: text('run_id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    url: text('url').notNull(),
    state: text('state').notNull().default('waiting'),
    attempts: integer('attempts').notNull().default(0),
    nextAt: timestamp('next_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('run_callbacks_open_idx').on(t.nextAt).where(sql`${t.state} = 'waiting'`),
    check('run_callbacks_state', sql`${t.state} in ('waiting', 'delivered', 'failed')`),
  ],
);
