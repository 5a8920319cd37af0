/** runs.attempts: a run's history: its first start and each re-open, with version, who, and outcome. */
import { z } from 'zod';
import { RunNotFoundError } from '@trellis/engine/errors';
import { listRunAttempts } from '@trellis/engine/runs/list-run-attempts';
import { RunIdSchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const attempts = protectedProcedure
  .input(z.object({ runId: RunIdSchema }))
  .output(
    z.array(
      z.object({
        attempt: z.number().int(),
        by: z.string().nullable(),
        at: z.date(),
        versionChoice: z.enum(['first', 'pinned', 'latest']),
        meshVersion: z.number().int(),
        members: z.array(z.string()),
        republished: z.number().int(),
        outcome: z.string(),
        outcomeCause: z.string().nullable(),
        outcomeMessage: z.string().nullable(),
      }),
    ),
  )
  .query(async ({ ctx, input }) => {
    const list = await listRunAttempts(ctx.db, input.runId);
    if (!list) throw new RunNotFoundError(input.runId);
    return list;
  });
