/** tRPC over fetch. Every procedure sees the session's user (or null) and the shared runtime. */
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@trellis/api/root';
import { currentUser } from '@/server/auth';
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
      const [user, rt] = await Promise.all([currentUser(), getRuntime()]);
      return { user, db: rt.db, engine: rt.engine };
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        process.stderr.write(`[trellis] ${path ?? '?'}: ${error.cause?.stack ?? error.stack ?? error.message}\n`);
      }
    },
  });
}

export { handler as GET, handler as POST };
