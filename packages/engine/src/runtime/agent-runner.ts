/** Plugs the agent executor (src/agents) into the engine's `runAgent` seam. */
import type { Db } from '@trellis/db/client';
import { StepError } from '../kernel/errors';
import type { PriceTable } from '../members/agent/budget';
import { runAgent } from '../members/agent/run-agent';
import { runGovernedAgent } from '../governance/governed-agent';
import { asPolicyRefusal } from '../policy/egress';
import { PolicyRefusedError } from '../policy/refusal';
import type { Guard } from '../policy/guard';
import { NO_SECRETS, type SecretResolver } from '../tools/secrets';
import type { AgentRunner } from '../kernel/engine';

/**
 * The secrets store seen through the guard as a {@link SecretResolver} for tool servers: a value is
 * revealed for an HTTP tool server only when its host is on the secret's list, and for a local
 * stdio server (no host) only when the secret lists that server as `tool:<registry name>`; anything
 * else is refused by the `secrets` policy.
 */
function guardSecrets(guard: Guard): SecretResolver {
  return {
    reveal(name, use) {
      if (use.host) return guard.secretFor(name, new URL(`https://${use.host}`), use.purpose);
      if (use.tool) return guard.secretForTool(name, use.tool, use.purpose);
      return Promise.reject(new PolicyRefusedError('secrets', `secret ${name} may only be sent to the hosts on its list; ${use.purpose} is a local process with no host`));
    },
  };
}

/**
 * The agent runner used by the CLI, the web server and the worker processes: the built-in demo or
 * an OpenAI-compatible model. The API key is the secret `provider.apiKeySecret` of the store, given
 * only when the provider's host is on that secret's list; every request goes through the egress
 * policy (`guard.fetch`). No environment variable is ever read. Secret values are redacted from
 * the answer and from error text. Without a guard (direct calls) only keyless providers work.
 * With `governance.db`, tools come from the admin-managed registry (their secrets through
 * `governance.secrets`, else the guard's store), budgets are enforced from recorded spend and tool
 * calls are put on the run's trail.
 */
export function agentRunner(fallback?: Guard, governance?: { db: Db; secrets?: SecretResolver; prices?: PriceTable }): AgentRunner {
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
      const options = {
        env: {},
        signal,
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
        ...(context?.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}),
        ...(governance?.prices ? { prices: governance.prices } : {}),
        ...(guard ? { redact: (text: string) => guard.redact(text) } : {}),
      };
      let output: unknown;
      if (!governance) {
        output = (await runAgent(member, payload, options)).output;
      } else {
        const place = { ...(context?.runId ? { runId: context.runId } : {}), ...(context?.meshId ? { meshId: context.meshId } : {}), ...(context?.messageId ? { messageId: context.messageId } : {}) };
        const secrets = governance.secrets ?? (guard ? guardSecrets(guard) : NO_SECRETS);
        output = (await runGovernedAgent(governance.db, secrets, member, payload, place, options)).output;
      }
      return guard ? (JSON.parse(guard.redact(JSON.stringify(output ?? null))) as unknown) : output;
    } catch (err) {
      const refused = asPolicyRefusal(err);
      if (refused instanceof PolicyRefusedError) throw new StepError('step_code_failed', member.id, refused.message, false);
      if (guard && err instanceof Error) err.message = guard.redact(err.message);
      throw err;
    }
  };
}
