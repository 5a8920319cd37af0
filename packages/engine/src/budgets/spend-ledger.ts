/**
 * Spend budgets enforced from recorded usage: every model call of an agent is written to
 * `agent_spend` as it happens, and before an agent runs its spend so far in the run and in the
 * current UTC day (all runs of the mesh) is read back in one query and handed to the agent as its
 * budget windows (agents/budget.ts), so a budget holds across messages, workers and restarts.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { agentSpend } from '@trellis/db/schema/tools';
import type { AgentBudgetLimits } from '@trellis/mesh/schema';
import type { AgentUsage } from '../members/agent/budget';
import { uuidv7 } from '../kernel/ids';
import { rows } from '../kernel/sql';

/** Which agent spends: a member (or a workflow member's agent step) of a mesh, in a run. */
export interface SpendPlace {
  runId: string;
  meshId: string;
  member: string;
}

/** Tokens and dollars spent so far, in the run and today (UTC). */
export interface SpentSoFar {
  run: { tokens: number; usd: number };
  day: { tokens: number; usd: number };
}

/** Records one model call's usage. */
export async function recordSpend(db: Db, place: SpendPlace, model: string, usage: AgentUsage): Promise<void> {
  await db.insert(agentSpend).values({
    id: uuidv7(),
    runId: place.runId,
    meshId: place.meshId,
    member: place.member,
    model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costUsd: usage.costUsd,
  });
}

/** What the agent at `place` spent in its run and since the start of the current UTC day. */
export async function spentSoFar(db: Db, place: SpendPlace, now = new Date()): Promise<SpentSoFar> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const tokens = sql`${agentSpend.promptTokens} + ${agentSpend.completionTokens}`;
  const inRun = sql`${agentSpend.runId} = ${place.runId}`;
  const today = sql`${agentSpend.at} >= ${dayStart.toISOString()}::timestamptz`;
  const [row] = await rows(db, sql`
    select sum(${tokens}) filter (where ${inRun}) as run_tokens,
           sum(${agentSpend.costUsd}) filter (where ${inRun}) as run_usd,
           sum(${tokens}) filter (where ${today}) as day_tokens,
           sum(${agentSpend.costUsd}) filter (where ${today}) as day_usd
      from ${agentSpend}
     where ${agentSpend.meshId} = ${place.meshId} and ${agentSpend.member} = ${place.member}
       and (${inRun} or ${today})`, z.object({ run_tokens: z.string().nullable(), run_usd: z.number().nullable(), day_tokens: z.string().nullable(), day_usd: z.number().nullable() }));
  return {
    run: { tokens: Number(row?.run_tokens ?? 0), usd: Number(row?.run_usd ?? 0) },
    day: { tokens: Number(row?.day_tokens ?? 0), usd: Number(row?.day_usd ?? 0) },
  };
}

/**
 * The first limit of `limits` that `spent` passes (`atStart`: reaches, so no call may start), as a
 * sentence naming the agent, the window and the figure; undefined when within every limit.
 */
export function overBudget(member: string, limits: AgentBudgetLimits | undefined, spent: SpentSoFar, atStart = false): string | undefined {
  if (!limits) return undefined;
  const past = (value: number, max: number) => (atStart ? value >= max : value > max);
  const checks: [number | undefined, number, string, (v: number) => string][] = [
    [limits.tokensPerRun, spent.run.tokens, 'in this run', (v) => `${v} tokens`],
    [limits.usdPerRun, spent.run.usd, 'in this run', (v) => `$${v.toFixed(6)}`],
    [limits.tokensPerDay, spent.day.tokens, 'today (UTC)', (v) => `${v} tokens`],
    [limits.usdPerDay, spent.day.usd, 'today (UTC)', (v) => `$${v.toFixed(6)}`],
  ];
  for (const [max, value, window, show] of checks) {
    if (max !== undefined && past(value, max)) {
      const budget = show(max).replace(/\.?0+$/, '');
      return `agent ${member} ${atStart ? 'already ' : ''}spent ${show(value)} ${window}, ${atStart ? 'its budget is' : 'over its budget of'} ${budget}`;
    }
  }
  return undefined;
}
