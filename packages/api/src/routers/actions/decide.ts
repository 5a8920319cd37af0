/** actions.decide: approve or reject a parked output (a rejection needs a comment). */
import { z } from 'zod';
import { decideApproval } from '@trellis/engine/approvals/decide';
import { operatorProcedure } from '../../trpc';

export const decide = operatorProcedure
  .input(
    z.object({
      approvalId: z.string().min(1).max(200),
      decision: z.enum(['approve', 'reject']),
      comment: z.string().max(2000).optional(),
    }),
  )
  .output(z.object({ approvalId: z.string(), runId: z.string(), status: z.enum(['approved', 'rejected']), published: z.number().int() }))
  .mutation(({ ctx, input }) => decideApproval(ctx.engine, { ...input, userId: ctx.user.id }));
