/**
 * The one handle through which steps reach anything outside their payload (docs/security.md):
 * secrets by store name for listed hosts, named SQL connections, the network under the egress
 * policy, and the sandbox's directory and user. Nothing here reads `process.env`.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '@trellis/db/client';
import { REPO_ROOT } from '../kernel/env';
import { guardedFetch, loadEgressPolicy, type EgressPolicy } from './egress';
import { keyOf, type SecretsKey } from './secret-key';
import { connectionUrl, secretForHost, secretForTool, setSecret, type SecretInfo, type SecretKind } from './secrets';
import { resolveSandbox, type SandboxSettings } from './sandbox-dir';

/** How the guard is set up; every field has a default. */
export interface SecuritySettings {
  /** The key of the secrets store; a random one for this process when absent (nothing stored opens). */
  secretsKey: SecretsKey;
  /** Egress allowed when the admin has set no rules (TRELLIS_EGRESS_ALLOW; default `*`, any public host). */
  egressDefault: readonly string[];
  /** TRELLIS_SANDBOX_ROOT (default `<tmpdir>/trellis-sandbox`). */
  sandboxRoot?: string | undefined;
  /** TRELLIS_SANDBOX_USER (default `nobody`; only used when Trellis runs as root). */
  sandboxUser?: string | undefined;
  /** A resolver instead of DNS (tests: a name that resolves to loopback). */
  lookup?: EgressPolicy['lookup'];
}

/** What steps may reach, each under its policy. */
export interface Guard {
  /**
   * The value of secret `name` for a request to `url`; `use` says who asks (for the refusal).
   * The value is remembered so {@link Guard.redact} can hide it.
   * @throws PolicyRefusedError (`secrets`).
   */
  secretFor(name: string, url: URL, use: string): Promise<string>;
  /**
   * The value of secret `name` for the environment of the registered tool server `tool` (allowed
   * only when the secret lists `tool:<tool>`); remembered for {@link Guard.redact} like the others.
   * @throws PolicyRefusedError (`secrets`).
   */
  secretForTool(name: string, tool: string, use: string): Promise<string>;
  /** The URL of a named SQL connection. @throws PolicyRefusedError (`connections`). */
  connectionUrl(name: string): Promise<string>;
  /** The egress policy in force now (re-read each call: an admin's change applies at once). */
  egress(): Promise<EgressPolicy>;
  /** `fetch` under the egress policy. @throws PolicyRefusedError (`egress`). */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The sandbox root and user (resolved on first use). @throws Error naming TRELLIS_SANDBOX_ROOT or _USER. */
  sandbox(): SandboxSettings;
  /** `text` with every secret value this guard handed out replaced by `[secret NAME]`. */
  redact(text: string): string;
  /**
   * Stores (creates or replaces) a secret or named connection sealed under this install's key;
   * for admin surfaces only (tRPC, CLI). Never returns the value.
   * @throws BadInputError naming the field (see secrets.ts `setSecret`).
   */
  store(entry: { kind: SecretKind; name: string; value: string; hosts?: readonly string[]; by: string }): Promise<SecretInfo>;
}

/** The guard of one engine over `db`. */
export function createGuard(db: Db, settings: Partial<SecuritySettings> = {}): Guard {
  const key = settings.secretsKey ?? keyOf(randomBytes(32));
  const fallback = settings.egressDefault ?? ['*'];
  const handedOut = new Map<string, string>();
  let sandbox: SandboxSettings | undefined;
  const remember = (name: string, value: string): string => {
    if (value.length >= 4) handedOut.set(value, name);
    return value;
  };
  const egress = async (): Promise<EgressPolicy> => {
    const policy = await loadEgressPolicy(db, fallback);
    return settings.lookup ? { ...policy, lookup: settings.lookup } : policy;
  };
  return {
    async secretFor(name, url, use) {
      return remember(name, await secretForHost(db, key, name, url, use));
    },
    async secretForTool(name, tool, use) {
      return remember(name, await secretForTool(db, key, name, tool, use));
    },
    connectionUrl: (name) => connectionUrl(db, key, name),
    egress,
    async fetch(input, init) {
      return guardedFetch(await egress(), input, init);
    },
    sandbox() {
      sandbox ??= resolveSandbox({ root: settings.sandboxRoot, user: settings.sandboxUser, appRoot: REPO_ROOT });
      return sandbox;
    },
    store: (entry) => setSecret(db, key, entry),
    redact(text) {
      let out = text;
      for (const [value, name] of handedOut) out = out.split(value).join(`[secret ${name}]`);
      return out;
    },
  };
}
