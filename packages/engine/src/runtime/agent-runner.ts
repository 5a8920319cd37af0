/** Plugs the agent executor (src/agents) into the engine's `runAgent` seam. */
import { runAgent } from '../members/agent/run-agent';
import type { AgentRunner } from '../kernel/engine';

/**
 * The agent runner used by the CLI, the web server and the worker processes: the built-in demo or
 * an OpenAI-compatible model, with API keys read from `variables` by the names members give.
 */
export function agentRunner(variables: Readonly<Record<string, string | undefined>>): AgentRunner {
  return async (member, payload, signal, context) =>
    (await runAgent(member, payload, { env: { ...variables }, signal, ...(context?.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}) })).output;
}
