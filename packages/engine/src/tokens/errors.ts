/** Errors of API tokens, each with the HTTP status it answers with. */
import { EngineError } from '../kernel/errors';
import type { Role } from '../users/roles';
import type { Scope } from './scopes';

/** A scope wider than the creator's role allows (HTTP 403). */
export class ScopeRefusedError extends EngineError {
  static override readonly httpStatus = 403;
  constructor(scope: Scope, role: Role, max: Scope) {
    super('scope_refused', `refused by the token policy: a ${role}'s tokens may have scope "${max}" at most, not "${scope}"`);
  }
}

/** No token with that id (or not one of the caller's). */
export class TokenNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(id: string) {
    super('token_not_found', `no token ${id} of yours`);
  }
}

/** The token's scope does not cover what it was used for (HTTP 403). */
export class TokenScopeError extends EngineError {
  static override readonly httpStatus = 403;
  constructor(what: string, needed: Scope, scope: Scope) {
    super('forbidden', `refused by the token policy: ${what} needs scope "${needed}"; this token has "${scope}"`);
  }
}
