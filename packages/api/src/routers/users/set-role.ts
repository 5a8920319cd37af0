/** users.setRole (admins): changes a user's role; their open sessions end. */
import { z } from 'zod';
import { setUserRole } from '@trellis/engine/users/change-user';
import { actorOf } from '@trellis/engine/audit/append';
import { adminProcedure } from '../../trpc';
import { RoleSchema, UserChangeSchema, WhoSchema } from './schemas';

export const setRole = adminProcedure
  .input(z.object({ user: WhoSchema, role: RoleSchema }))
  .output(UserChangeSchema)
  .mutation(({ ctx, input }) => setUserRole(ctx.db, input.user, input.role, actorOf(ctx.user)));
