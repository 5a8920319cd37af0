import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * MCP tool servers by the name agents list in `tools`, managed by admins only. `config` is the
 * server's launch or address (engine tools/registry.ts `ToolServerConfig`, parsed with zod on
 * write and read): a stdio command with its arguments and environment (values by secrets-store
 * name, never the secret itself), or a streamable-HTTP URL. A mesh never supplies any of it.
 */
export const toolServers = pgTable('tool_servers', {
  name: text('name').primaryKey(),
  transport: text('transport').notNull(),
  config: jsonb('config').notNull(),
  createdBy: text('created_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Tool calls an agent asked for, on the run's trail: `outcome` is `ok`, `error` (the tool reported
 * a failure) or `refused` (outside the agent's grants). `tool` is the name the model used.
 */
export const toolCalls = pgTable(
  'tool_calls',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    messageId: text('message_id'),
    member: text('member').notNull(),
    tool: text('tool').notNull(),
    server: text('server'),
    outcome: text('outcome').notNull(),
    detail: text('detail'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('tool_calls_run_idx').on(t.runId, t.at)],
);

/**
 * What each model call of an agent cost, one row per call, the source for spend budgets: per run
 * (`run_id`) and per day (`mesh_id`, `member`, `at`, UTC days). `cost_usd` is null for a model
 * without a price.
 */
export const agentSpend = pgTable(
  'agent_spend',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    meshId: text('mesh_id').notNull(),
    member: text('member').notNull(),
    model: text('model').notNull(),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    costUsd: doublePrecision('cost_usd'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('agent_spend_run_idx').on(t.runId, t.member),
    index('agent_spend_day_idx').on(t.meshId, t.member, t.at),
    // Admission's model rate (engine runs/admission.ts): one model's calls in the last minute.
    index('agent_spend_model_at_idx').on(t.model, t.at),
  ],
);

/**
 * The 429 Too Many Requests answers agents got from their providers, one row per answer: `model`
 * at `base_url`, when (`at`), the provider's `retry-after` in milliseconds (null when it sent none)
 * and `until` (`at` plus the retry-after, or plus 60 s without one). Admission (engine
 * runs/admission.ts) makes a new run of an agent on that model and provider wait until then.
 */
export const modelRateLimits = pgTable(
  'model_rate_limits',
  {
    id: text('id').primaryKey(),
    model: text('model').notNull(),
    baseUrl: text('base_url').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    retryAfterMs: integer('retry_after_ms'),
    until: timestamp('until', { withTimezone: true }).notNull(),
    /** Where the call was made, when known (a direct call has no run). */
    runId: text('run_id'),
    meshId: text('mesh_id'),
    member: text('member'),
  },
  (t) => [index('model_rate_limits_model_until_idx').on(t.model, t.until)],
);
