/** tokens.create: a personal API token, within the person's role; answered this once. */
import { createPersonalToken } from '@trellis/engine/tokens/create-token';
import { selfProcedure } from '../../trpc';
import { CreatedTokenSchema, NewTokenSchema } from './schemas';

export const create = selfProcedure
  .input(NewTokenSchema)
  .output(CreatedTokenSchema)
  .mutation(({ ctx, input }) => createPersonalToken(ctx.db, ctx.user, input));
