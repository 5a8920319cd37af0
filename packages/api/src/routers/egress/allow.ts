/** egress.allow (admins only): adds a host pattern to the egress policy; `internal` lets that exact host resolve to a private address. */
import { z } from 'zod';
import { allowEgress } from '@trellis/engine/policy/egress';
import { adminProcedure } from '../../trpc';

export const allow = adminProcedure
  .input(z.object({ pattern: z.string().min(1), internal: z.boolean().default(false) }))
  .output(z.object({ pattern: z.string(), internal: z.boolean(), createdBy: z.string(), createdAt: z.date() }))
  .mutation(({ ctx, input }) => allowEgress(ctx.db, { ...input, by: ctx.user.id }));
