/** Plugs the agent executor (src/agents) into the engine's `runAgent` seam. */
import { StepError } from '../kernel/errors';
import { runAgent } from '../members/agent/run-agent';
import { asPolicyRefusal } from '../policy/egress';
import { PolicyRefusedError } from '../policy/refusal';
import type { Guard } from '../policy/guard';
import type { AgentRunner } from '../kernel/engine';

/**
 * The agent runner used by the CLI, the web server and the worker processes: the built-in demo or
 * an OpenAI-compatible model. The API key is the secret `provider.apiKeySecret` of the store, given
 * only when the provider's host is on that secret's list; every request goes through the egress
 * policy (`guard.fetch`). No environment variable is ever read. Secret values are redacted from
 * the answer and from error text. Without a guard (direct calls) only keyless providers work.
 */
export function agentRunner(fallback?: Guard): AgentRunner {
  return async (member, payload, signal, context) => {
    const guard = context?.guard ?? fallback;
    const provider = member.provider;
    try {
      let apiKey: string | undefined;
      if (provider?.apiKeySecret !== undefined) {
        if (!guard) throw new PolicyRefusedError('secrets', `agent ${member.id} needs the secret ${provider.apiKeySecret}, and no secrets store is open`);
        apiKey = await guard.secretFor(provider.apiKeySecret, new URL(provider.baseUrl), `agent ${member.id}'s provider.apiKeySecret`);
      }
      const fetchImpl: typeof fetch | undefined = guard ? (input, init) => guard.fetch(input, init) : undefined;
      const result = await runAgent(member, payload, {
        env: {},
        signal,
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
        ...(context?.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}),
      });
      return guard ? (JSON.parse(guard.redact(JSON.stringify(result.output ?? null))) as unknown) : result.output;
    } catch (err) {
      const refused = asPolicyRefusal(err);
      if (refused instanceof PolicyRefusedError) throw new StepError('step_code_failed', member.id, refused.message, false);
      if (guard && err instanceof Error) err.message = guard.redact(err.message);
      throw err;
    }
  };
}
