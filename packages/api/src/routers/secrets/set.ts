/** secrets.set (admins only): stores a secret (with the hosts it may go to) or a named connection, sealed; answers without the value. */
import { z } from 'zod';
import { adminProcedure } from '../../trpc';
import { SecretInfoSchema, SecretKindSchema } from './schemas';

export const set = adminProcedure
  .input(z.object({ kind: SecretKindSchema.default('secret'), name: z.string().min(1), value: z.string().min(1), hosts: z.array(z.string()).default([]) }))
  .output(SecretInfoSchema)
  .mutation(({ ctx, input }) => ctx.engine.guard.store({ ...input, by: ctx.user.id }));
