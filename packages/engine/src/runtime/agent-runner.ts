/** Plugs the agent executor (src/agents) into the engine's `runAgent` seam. */
import type { Db } from '@trellis/db/client';
import type { PriceTable } from '../members/agent/budget';
import { runAgent } from '../members/agent/run-agent';
import { runGovernedAgent } from '../governance/governed-agent';
import { NO_SECRETS, type SecretResolver } from '../tools/secrets';
import type { AgentRunner } from '../kernel/engine';

/**
 * The agent runner used by the CLI, the web server and the worker processes: the built-in demo or
 * an OpenAI-compatible model, with API keys read from `variables` by the names members give.
 * With `db`, tools come from the admin-managed registry (secrets through `secrets`, none by
 * default), budgets are enforced from recorded spend and tool calls are put on the run's trail.
 */
export function agentRunner(variables: Readonly<Record<string, string | undefined>>, governance?: { db: Db; secrets?: SecretResolver; prices?: PriceTable }): AgentRunner {
  return async (member, payload, signal, context) => {
    const options = {
      env: { ...variables },
      signal,
      ...(context?.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}),
      ...(governance?.prices ? { prices: governance.prices } : {}),
    };
    if (!governance) return (await runAgent(member, payload, options)).output;
    const place = { ...(context?.runId ? { runId: context.runId } : {}), ...(context?.meshId ? { meshId: context.meshId } : {}), ...(context?.messageId ? { messageId: context.messageId } : {}) };
    return (await runGovernedAgent(governance.db, governance.secrets ?? NO_SECRETS, member, payload, place, options)).output;
  };
}
