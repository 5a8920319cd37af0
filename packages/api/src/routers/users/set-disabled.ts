/** users.setDisabled (admins): disables a user (their sessions end at once) or enables them again. */
import { z } from 'zod';
import { setUserDisabled } from '@trellis/engine/users/change-user';
import { actorOf } from '@trellis/engine/audit/append';
import { adminProcedure } from '../../trpc';
import { UserChangeSchema, WhoSchema } from './schemas';

export const setDisabled = adminProcedure
  .input(z.object({ user: WhoSchema, disabled: z.boolean() }))
  .output(UserChangeSchema)
  .mutation(({ ctx, input }) => setUserDisabled(ctx.db, input.user, input.disabled, actorOf(ctx.user)));
