/** tRPC over fetch. Every procedure sees the session's claims (or null) and the shared runtime; trpc.ts checks them. */
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { describeApiError } from '@trellis/api/errors';
import { appRouter } from '@trellis/api/root';
import { currentSession } from '@/server/auth';
import { getRuntime } from '@/server/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

function handler(req: Request): Promise<Response> {
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
