/**
 * users.add (admins): adds a person with a role. Without a password one is generated and answered
 * this once, for the admin to hand over.
 */
import { z } from 'zod';
import { addUser, MIN_PASSWORD_LENGTH } from '@trellis/engine/users/add-user';
import { actorOf } from '@trellis/engine/audit/append';
import { adminProcedure } from '../../trpc';
import { RoleSchema } from './schemas';

export const add = adminProcedure
  .input(
    z.object({
      email: z.string().trim().min(3).max(320),
      name: z.string().trim().max(200).optional(),
      role: RoleSchema,
      password: z.string().min(MIN_PASSWORD_LENGTH).max(200).optional(),
    }),
  )
  .output(z.object({ id: z.string(), email: z.string(), role: RoleSchema, password: z.string().optional() }))
  .mutation(({ ctx, input }) => addUser(ctx.db, input, actorOf(ctx.user)));
