/**
 * tRPC over fetch. Every procedure sees the session's claims (or null) and the shared runtime;
 * trpc.ts checks them. A change (POST) signed in by cookie must come from this site: the same
 * Origin check as REST (@trellis/api/rest/origin), so a form another site (or another port on
 * localhost) posts is refused before any procedure reads it.
 */
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { cappedJsonRequest } from '@trellis/api/body-limit';
import { checkOrigin } from '@trellis/api/rest/origin';
import { describeApiError } from '@trellis/api/errors';
import { appRouter } from '@trellis/api/root';
import { currentSession } from '@/server/auth';
import { getRuntime } from '@/server/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

async function handler(incoming: Request): Promise<Response> {
  let req: Request;
  try {
    checkOrigin(incoming);
    // Counted while it streams: a body over TRELLIS_MAX_BODY_BYTES or nested past TRELLIS_MAX_JSON_DEPTH is refused here.
    req = await cappedJsonRequest(incoming);
  } catch (err) {
    const view = describeApiError(err);
    return Response.json({ error: { message: view.message, code: view.reason } }, { status: view.httpStatus });
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    allowMethodOverride: true,
    createContext: async () => {
      const [session, rt] = await Promise.all([currentSession(), getRuntime()]);
      return { session, db: rt.db, engine: rt.engine };
    },
    onError: ({ error, path }) => {
      // Engine errors with a known status (a conflict, a missing run) are answers, not faults: only
      // what maps to 500 is logged.
      if (describeApiError(error).code === 'INTERNAL_SERVER_ERROR') {
        process.stderr.write(`[trellis] ${path ?? '?'}: ${error.cause?.stack ?? error.stack ?? error.message}\n`);
      }
    },
  });
}

export { handler as GET, handler as POST };
