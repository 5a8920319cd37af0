/** Errors of webhooks and schedules, each with the HTTP status it answers with. */
import { EngineError } from '../kernel/errors';

/** A webhook request whose signature is missing, malformed, outside the replay window or wrong (HTTP 401). */
export class WebhookSignatureError extends EngineError {
  static override readonly httpStatus = 401;
  constructor(detail: string) {
    super('signature_invalid', `refused by the webhook signature check: ${detail}`);
  }
}

/** No webhook or schedule by that id or name (HTTP 404). */
export class EntryNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(what: string) {
    super('not_found', `no ${what}`);
  }
}
