/** secrets.list (admins only): the names, hosts and authors of secrets or connections, never a value. */
import { z } from 'zod';
import { listSecrets } from '@trellis/engine/policy/secrets';
import { adminProcedure } from '../../trpc';
import { SecretInfoSchema, SecretKindSchema } from './schemas';

export const list = adminProcedure
  .input(z.object({ kind: SecretKindSchema.default('secret') }))
  .output(z.array(SecretInfoSchema))
  .query(({ ctx, input }) => listSecrets(ctx.db, input.kind));
