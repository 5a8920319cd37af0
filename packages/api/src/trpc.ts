/** tRPC setup: superjson (dates cross intact), the error formatter, and the signed-in guard. */
import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { Context } from './context';
import { formatError } from './errors';

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter: formatError,
  // Never attach stacks to responses, whatever NODE_ENV says.
  isDev: false,
});

export const router = t.router;

/** Reachable without signing in; use only where that is the point. */
export const publicProcedure = t.procedure;

/** Every procedure unless explicitly public: refuses callers without a session. */
export const protectedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in to continue' });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Admins only: refuses a signed-in user whose role is not `admin`, naming the policy. */
export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'only an admin may manage the tool registry' });
  return next();
});
