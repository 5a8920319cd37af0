/** The answer of the service API while the database or Redis cannot be reached, and its POST handlers. */
import { errorResponse } from '@trellis/api/rest/services';
import { getRuntime, type TrellisRuntime } from '@/server/runtime';

/** 503 with the usual error body; the next request tries to start the runtime again. */
export function unavailable(): Response {
  return errorResponse(503, 'unavailable', 'Trellis cannot reach its database or Redis right now; try again shortly');
}

/**
 * A route's POST handler: the route's params, then `route` on the running engine, or {@link unavailable}
 * while the runtime cannot start.
 */
export function servicePost<P>(
  route: (engine: TrellisRuntime['engine'], req: Request, params: P) => Promise<Response>,
): (req: Request, ctx: { params: Promise<P> }) => Promise<Response> {
  return async (req, ctx) => {
    const params = await ctx.params;
    const rt = await getRuntime().catch(() => undefined);
    if (!rt) return unavailable();
    return route(rt.engine, req, params);
  };
}
