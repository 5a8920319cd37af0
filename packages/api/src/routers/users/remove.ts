/** users.remove (admins): removes a user; their sessions end with the row. */
import { z } from 'zod';
import { removeUser } from '@trellis/engine/users/change-user';
import { actorOf } from '@trellis/engine/audit/append';
import { adminProcedure } from '../../trpc';
import { UserChangeSchema, WhoSchema } from './schemas';

export const remove = adminProcedure
  .input(z.object({ user: WhoSchema }))
  .output(UserChangeSchema)
  .mutation(({ ctx, input }) => removeUser(ctx.db, input.user, actorOf(ctx.user)));
