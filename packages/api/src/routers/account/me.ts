/** account.me: who is signed in, with their role (the web app shows only what the role allows). */
import { z } from 'zod';
import { selfProcedure } from '../../trpc';
import { RoleSchema } from '../users/schemas';

export const me = selfProcedure
  .output(z.object({ id: z.string(), email: z.string(), name: z.string(), role: RoleSchema }))
  .query(({ ctx }) => ({ id: ctx.user.id, email: ctx.user.email, name: ctx.user.name, role: ctx.user.role }));
