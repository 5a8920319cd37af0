/** account.changePassword: a person changes their own password; every session of theirs ends. */
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '@trellis/engine/users/add-user';
import { changePassword as change } from '@trellis/engine/users/own-account';
import { selfProcedure } from '../../trpc';

export const changePassword = selfProcedure
  .input(z.object({ current: z.string().min(1).max(200), password: z.string().min(MIN_PASSWORD_LENGTH).max(200) }))
  .output(z.object({ signedOut: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await change(ctx.db, ctx.user.id, input);
    return { signedOut: true as const };
  });
