/** The answer of the service API while the database or Redis cannot be reached. */
import { errorResponse } from '@trellis/api/rest/services';

/** 503 with the usual error body; the next request tries to start the runtime again. */
export function unavailable(): Response {
  return errorResponse(503, 'unavailable', 'Trellis cannot reach its database or Redis right now; try again shortly');
}
