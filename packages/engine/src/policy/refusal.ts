/**
 * A request a security policy refuses (docs/security.md). `policy` names it (`secrets`,
 * `connections`, `egress`, `sql-role`, `sandbox`) and the message says what was refused and how an
 * admin may allow it. Step runners turn it into a non-retryable `step_code_failed`.
 */
import { EngineError } from '../kernel/errors';

/** The policies a refusal may name. */
export type PolicyName = 'secrets' | 'connections' | 'egress' | 'sql-role' | 'sandbox';

/** Thrown when a security policy refuses a request; the message starts with `refused by the <policy> policy:`. */
export class PolicyRefusedError extends EngineError {
  static override readonly httpStatus = 400;
  constructor(
    readonly policy: PolicyName,
    detail: string,
  ) {
    super('policy_refused', `refused by the ${policy} policy: ${detail}`);
  }
}
