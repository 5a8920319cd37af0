/**
 * The seam between the tool registry and the secrets store: a tool server's environment variables
 * and HTTP headers name secrets by their store name, and a {@link SecretResolver} turns a name into
 * its value at the moment a server is started, never earlier and never into anything stored.
 */
import { StepError } from '../kernel/errors';

/** Where a secret is about to be used, so the store can refuse uses it does not allow. */
export interface SecretUse {
  /** What asks, in words for refusals, e.g. `tool server "search"`. */
  purpose: string;
  /** The host the value will be sent to (HTTP servers); absent for a local stdio process. */
  host?: string;
  /**
   * The registry name of the tool server whose environment the value goes into (stdio servers):
   * the store admits it only when the secret lists `tool:<name>` among its targets.
   */
  tool?: string;
}

/**
 * Reveals secrets by store name. The admin-managed secrets store implements it; tests pass a map.
 * @throws Error (any) when the secret does not exist or may not be used as `use` says; the message
 *   must name the secret, never its value.
 */
export interface SecretResolver {
  reveal(name: string, use: SecretUse): Promise<string>;
}

/** A resolver with no secrets: every name is refused. The default until a store is wired in. */
export const NO_SECRETS: SecretResolver = {
  reveal(name, use) {
    return Promise.reject(new Error(`secret ${name} (for ${use.purpose}) is not in the secrets store`));
  },
};

/** A resolver over fixed values, for tests and single-user setups. */
export function secretsFromMap(values: Readonly<Record<string, string>>): SecretResolver {
  return {
    reveal(name, use) {
      if (!Object.hasOwn(values, name)) return NO_SECRETS.reveal(name, use);
      return Promise.resolve(values[name] as string);
    },
  };
}

/**
 * The values of `names` (variable or header → secret name) through `secrets`.
 * @throws StepError `agent_or_model_missing` naming the member and the secret when one is refused.
 */
export async function revealAll(
  secrets: SecretResolver,
  names: Readonly<Record<string, string>>,
  use: SecretUse,
  member: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, secret] of Object.entries(names)) {
    try {
      out[key] = await secrets.reveal(secret, use);
    } catch (err) {
      const why = err instanceof Error ? err.message : `secret ${secret} was refused`;
      throw new StepError('agent_or_model_missing', member, `${use.purpose} could not start: ${why}`, false);
    }
  }
  return out;
}
