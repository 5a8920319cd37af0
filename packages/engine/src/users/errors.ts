/** Errors of sign-in and the role policy, each with the HTTP status it answers with. */
import { EngineError } from '../kernel/errors';
import { ROLES_ALLOWED, type Role, type SignedInRule } from './roles';

/** No session, an ended session (signed out, disabled, removed, role changed) or a bad token. */
export class NotSignedInError extends EngineError {
  static override readonly httpStatus = 401;
  constructor(message = 'sign in to continue') {
    super('unauthorized', message);
  }
}

/** The caller's role (or token scope) does not allow the rule; the message names the policy. */
export class AccessRefusedError extends EngineError {
  static override readonly httpStatus = 403;
  constructor(
    readonly rule: SignedInRule,
    role: Role,
    what = 'this',
  ) {
    super('forbidden', `refused by the role policy: ${what} needs "${rule}" (${ROLES_ALLOWED[rule].join(', ')}); you are ${role}`);
  }
}

/** No user with that email or id. */
export class UserNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(who: string) {
    super('user_not_found', `no user ${who}`);
  }
}

/** A user with that email exists already. */
export class UserExistsError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(email: string) {
    super('user_exists', `a user with the email ${email} exists already`);
  }
}

/** The change would leave nobody able to administer Trellis. */
export class LastAdminError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(action: string) {
    super('last_admin', `refused by the last-admin policy: cannot ${action} the only active admin; make another admin first`);
  }
}
