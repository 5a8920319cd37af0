import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Schedules (engine schedules/*): a cron expression in a time zone starting a run of `mesh_id`'s
 * latest version on a fixed input at each tick. `next_at` is the next tick not yet handled; the
 * orchestrator's schedule pass starts due ticks with the idempotency key `schedule:<id>:<tick ISO
 * time>`, so two orchestrators start one run per tick. `missed` says what happens to ticks that
 * passed while no orchestrator ran: `skip` them, or `run_once` (one run for the latest of them).
 * `input` is `{ text }` or `{ payload }` (engine kernel/input.ts), with an optional `name`.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull().unique(),
    meshId: text('mesh_id').notNull(),
    cron: text('cron').notNull(),
    timezone: text('timezone').notNull(),
    input: jsonb('input').$type<{ name?: string; text?: string; payload?: Record<string, unknown> }>().notNull(),
    missed: text('missed').notNull().default('skip'),
    enabled: boolean('enabled').notNull().default(true),
    nextAt: timestamp('next_at', { withTimezone: true }),
    lastTickAt: timestamp('last_tick_at', { withTimezone: true }),
    lastRunId: text('last_run_id'),
    /** Why the last tick started no run (the mesh cannot run, the input was refused), else null. */
    lastError: text('last_error'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('schedules_due_idx').on(t.nextAt).where(sql`${t.enabled}`),
    check('schedules_missed', sql`${t.missed} in ('skip', 'run_once')`),
  ],
);
