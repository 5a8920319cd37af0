/** Errors of the Action Center and approvals. */
import { EngineError } from '../kernel/errors';

/** No action item or approval with that id. */
export class ActionNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(what: string) {
    super('action_not_found', `no ${what}`);
  }
}

/** The action does not apply in the item's current state, or its input is incomplete. */
export class ActionRefusedError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(message: string) {
    super('action_refused', message);
  }
}
