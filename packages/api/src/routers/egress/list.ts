/** egress.list (admins only): the install's egress rules, and the default that holds while there are none. */
import { z } from 'zod';
import { listEgressRules } from '@trellis/engine/policy/egress';
import { adminProcedure } from '../../trpc';

export const list = adminProcedure
  .output(z.object({ rules: z.array(z.object({ pattern: z.string(), internal: z.boolean(), createdBy: z.string(), createdAt: z.date() })), inForce: z.array(z.string()) }))
  .query(async ({ ctx }) => ({ rules: await listEgressRules(ctx.db), inForce: (await ctx.engine.guard.egress()).allow }));
