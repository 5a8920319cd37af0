/** users.list (admins): every user with their role and whether they are disabled. */
import { z } from 'zod';
import { listUsers } from '@trellis/engine/users/list-users';
import { adminProcedure } from '../../trpc';
import { RoleSchema } from './schemas';

export const list = adminProcedure
  .output(z.array(z.object({ id: z.string(), email: z.string(), name: z.string(), role: RoleSchema, disabled: z.boolean(), createdAt: z.date() })))
  .query(({ ctx }) => listUsers(ctx.db));
