/** egress.remove (admins only): drops a rule; with no rules left the TRELLIS_EGRESS_ALLOW default holds again. */
import { z } from 'zod';
import { removeEgressRule } from '@trellis/engine/policy/egress';
import { adminProcedure } from '../../trpc';

export const remove = adminProcedure
  .input(z.object({ pattern: z.string().min(1) }))
  .output(z.object({ removed: z.boolean() }))
  .mutation(async ({ ctx, input }) => ({ removed: await removeEgressRule(ctx.db, input.pattern, ctx.user.id) }));
