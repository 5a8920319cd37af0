/** secrets.remove (admins only): deletes a secret or connection; steps naming it are refused from then on. */
import { z } from 'zod';
import { deleteSecret } from '@trellis/engine/policy/secrets';
import { adminProcedure } from '../../trpc';
import { SecretKindSchema } from './schemas';

export const remove = adminProcedure
  .input(z.object({ kind: SecretKindSchema.default('secret'), name: z.string().min(1) }))
  .output(z.object({ removed: z.boolean() }))
  .mutation(async ({ ctx, input }) => ({ removed: await deleteSecret(ctx.db, input.kind, input.name, ctx.user.id) }));
