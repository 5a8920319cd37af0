/** tokens.revoke: revokes one of the person's tokens (an admin: anyone's); it stops working at once. */
import { z } from 'zod';
import { revokeToken } from '@trellis/engine/tokens/manage-tokens';
import { selfProcedure } from '../../trpc';

export const revoke = selfProcedure
  .input(z.object({ id: z.string().min(1).max(100) }))
  .output(z.object({ id: z.string() }))
  .mutation(({ ctx, input }) => revokeToken(ctx.db, ctx.user, input.id));
