/** Types of egress-core.mjs, the egress guard shared by the engine and the code sandbox. */

/** The install's egress policy as the guard applies it. */
export interface EgressPolicy {
  /** Host patterns: `*`, `*.example.com`, `name`, `name:port`. */
  allow: string[];
  /** Exact hosts (`name` or `name:port`) that may resolve to loopback, private or link-local addresses. */
  internal?: string[];
  /** Resolver used instead of `dns.lookup` (tests); answers every address of `host`. */
  lookup?: (host: string, callback: (err: Error | null, addresses?: { address: string; family: number }[]) => void) => void;
}

/** The label of the refused range `ip` falls in, or undefined for a public address. */
export function refusedRange(ip: string): string | undefined;
/** True when `host` (`name` or `name:port`) matches `pattern`. */
export function hostMatches(host: string, pattern: string): boolean;
/** Why `url` may not be requested under `policy`, or undefined. */
export function refusal(url: URL, policy: EgressPolicy): string | undefined;
/** A request the egress policy refuses. */
export class EgressRefusedError extends Error {
  readonly policy: 'egress';
}
/** `fetch` under the egress policy; see egress-core.mjs. */
export function egressFetch(input: string | URL | Request, init: RequestInit | undefined, policy: EgressPolicy): Promise<Response>;
