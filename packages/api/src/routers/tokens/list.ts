/** tokens.list: the person's own tokens; `all` (admins) lists everyone's, service tokens included. */
import { z } from 'zod';
import { listTokens } from '@trellis/engine/tokens/manage-tokens';
import { selfProcedure } from '../../trpc';
import { TokenViewSchema } from './schemas';

export const list = selfProcedure
  .input(z.object({ all: z.boolean().default(false) }).default({ all: false }))
  .output(z.array(TokenViewSchema))
  .query(({ ctx, input }) => listTokens(ctx.db, ctx.user, input.all));
