/**
 * tRPC setup: superjson (dates cross intact), the error formatter, and the one access check. Every
 * procedure is built from a role-named builder below, which records its rule as the procedure's meta
 * (`{ access }`); one middleware reads that rule on every call, loads the session's user fresh from
 * the users row (ending sessions whose version moved on) and refuses what the role policy
 * (engine users/roles.ts) does not allow. A procedure with no rule is refused for everyone, and the
 * authorization matrix test (access-matrix.integration.test.ts) fails for it.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { isEngineError } from '@trellis/engine/errors';
import { authorize } from '@trellis/engine/users/session-user';
import type { AccessRule } from '@trellis/engine/users/roles';
import type { Context } from './context';
import { formatError } from './errors';

/** A procedure's meta: the access rule it was built with. */
export interface AccessMeta {
  access?: AccessRule;
}

const t = initTRPC
  .context<Context>()
  .meta<AccessMeta>()
  .create({
    transformer: superjson,
    errorFormatter: formatError,
    // Never attach stacks to responses, whatever NODE_ENV says.
    isDev: false,
  });

export const router = t.router;

/** Refuses a call whose procedure names no signed-in rule, before its input is even read. */
const signedIn = t.procedure.use(async ({ ctx, meta, path, next }) => {
  const rule = meta?.access;
  if (!rule || rule === 'public') throw new TRPCError({ code: 'FORBIDDEN', message: `refused by the role policy: ${path} has no access rule` });
  const user = await authorize(ctx.db, ctx.session, rule, path).catch((err: unknown) => {
    // Refusals keep their sentence and become UNAUTHORIZED or FORBIDDEN; anything else is a fault.
    if (isEngineError(err, 'unauthorized')) throw new TRPCError({ code: 'UNAUTHORIZED', message: err.message, cause: err });
    if (isEngineError(err, 'forbidden')) throw new TRPCError({ code: 'FORBIDDEN', message: err.message, cause: err });
    throw err;
  });
  return next({ ctx: { ...ctx, user } });
});

/** Reachable without signing in; use only where that is the point. */
export const publicProcedure = t.procedure.meta({ access: 'public' });
/** Any signed-in person, acting on their own account (password, own tokens). */
export const selfProcedure = signedIn.meta({ access: 'self' });
/** Reading: every role. */
export const viewerProcedure = signedIn.meta({ access: 'read' });
/** Creating, editing and importing meshes: designers and admins. */
export const designerProcedure = signedIn.meta({ access: 'design' });
/** Starting runs: designers, operators and admins. */
export const runnerProcedure = signedIn.meta({ access: 'run' });
/** Re-opening and cancelling runs, approvals, Action Center decisions: operators and admins. */
export const operatorProcedure = signedIn.meta({ access: 'operate' });
/** Users, services, secrets, policies: admins only. */
export const adminProcedure = signedIn.meta({ access: 'admin' });
