/** services.add (admins only): registers an outside service and returns its API key, shown this once. */
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { addService } from '@trellis/engine/services/registry';
import { IdSchema } from '@trellis/mesh/schema';
import { protectedProcedure } from '../../trpc';

export const add = protectedProcedure
  .input(z.object({ name: IdSchema }))
  .output(z.object({ name: z.string(), apiKey: z.string() }))
  .mutation(({ ctx, input }) => {
    if (ctx.user.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'only an admin may register outside services' });
    return addService(ctx.db, { name: input.name, userId: ctx.user.id });
  });
