/** tools.remove (admins only): unregisters a tool server; agents that list it then fail naming it. */
import { z } from 'zod';
import { removeToolServer } from '@trellis/engine/tools/registry';
import { adminProcedure } from '../../trpc';

export const remove = adminProcedure
  .input(z.object({ name: z.string().min(1) }))
  .output(z.object({ removed: z.boolean() }))
  .mutation(async ({ ctx, input }) => ({ removed: await removeToolServer(ctx.db, input.name, ctx.user.id) }));
