/** services.add (admins only): registers an outside service and returns its API key, shown this once. */
import { z } from 'zod';
import { addService } from '@trellis/engine/services/registry';
import { IdSchema } from '@trellis/mesh/schema';
import { actorOf } from '@trellis/engine/audit/append';
import { adminProcedure } from '../../trpc';

export const add = adminProcedure
  .input(z.object({ name: IdSchema }))
  .output(z.object({ name: z.string(), apiKey: z.string() }))
  .mutation(({ ctx, input }) => addService(ctx.db, { name: input.name, userId: ctx.user.id, actor: actorOf(ctx.user) }));
