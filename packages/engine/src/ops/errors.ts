/** Errors of the Action Center and approvals. */
import { EngineError } from '../errors';

/** No action item or approval with that id (HTTP 404). */
export class ActionNotFoundError extends EngineError {
  constructor(what: string) {
    super('action_not_found', `no ${what}`);
  }
}

/** The action does not apply in the item's current state, or its input is incomplete (HTTP 409). */
export class ActionRefusedError extends EngineError {
  constructor(message: string) {
    super('action_refused', message);
  }
}
