/**
 * An agent call under the install's governance: tools only from the admin-managed registry (the
 * ones the agent lists, nothing else), spend budgets from recorded usage, and every model call and
 * tool call written down as it happens.
 */
import type { Db } from '@trellis/db/client';
import type { AgentMember } from '@trellis/mesh/schema';
import { runAgent, type AgentResult, type RunAgentOptions } from '../members/agent/run-agent';
import { agentFailure } from '../members/agent/fail';
import { overBudget, recordSpend, spentSoFar, type SpendPlace } from '../budgets/spend-ledger';
import { recordRateLimited } from '../budgets/rate-limited';
import { loadToolRegistry } from '../tools/registry';
import type { SecretResolver } from '../tools/secrets';
import { recordToolCall } from '../tools/trail';

/** Where the call happens: without a run (a direct call) nothing is recorded and no budget applies. */
export interface GovernedPlace {
  runId?: string;
  meshId?: string;
  messageId?: string;
}

/**
 * Runs `member` with the tool servers it lists loaded from the registry (secrets revealed through
 * `secrets`), its `budget` checked against `agent_spend` before the first model call and after
 * each one (once that call's usage is recorded), each tool call (granted or refused) recorded, and
 * each 429 of its provider recorded in `model_rate_limits` (budgets/rate-limited.ts).
 * @throws StepError as {@link runAgent}; `budget_spent` names the agent, the window and the figure.
 */
export async function runGovernedAgent(
  db: Db,
  secrets: SecretResolver,
  member: AgentMember,
  payload: unknown,
  place: GovernedPlace,
  options: Omit<RunAgentOptions, 'tools' | 'onUsage' | 'onToolCall' | 'onRateLimited'>,
): Promise<AgentResult> {
  if (member.model === 'demo') return runAgent(member, payload, options);
  const tools = await loadToolRegistry(db, member.tools ?? [], secrets, member.id);
  const governed: RunAgentOptions = { ...options, tools };
  // Every 429 is written down, with or without a run: admission makes new runs on the model wait it out.
  governed.onRateLimited = (event) => recordRateLimited(db, { ...event, runId: place.runId, meshId: place.meshId, member: member.id });
  if (place.runId !== undefined) {
    const { runId } = place;
    governed.onToolCall = (event) => recordToolCall(db, { runId, member: member.id, ...(place.messageId ? { messageId: place.messageId } : {}) }, event);
    if (place.meshId !== undefined) {
      const at: SpendPlace = { runId, meshId: place.meshId, member: member.id };
      const limits = member.budget;
      // Checked against what Postgres recorded, so parallel deliveries and other workers count too.
      const check = async (atStart: boolean) => {
        const over = limits ? overBudget(member.id, limits, await spentSoFar(db, at), atStart) : undefined;
        if (over) throw agentFailure(member, 'budget_spent', over, false);
      };
      await check(true);
      governed.onUsage = async (usage) => {
        await recordSpend(db, at, member.model, usage);
        await check(false);
      };
    }
  }
  return runAgent(member, payload, governed);
}
