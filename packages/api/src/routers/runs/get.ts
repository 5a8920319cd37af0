/** runs.get: one run with its counts in total and per member (polled while the run is going). */
import { z } from 'zod';
import { RunNotFoundError } from '@trellis/engine/errors';
import { getRun } from '@trellis/engine/runs/get-run';
import { MemberCountsSchema, RunIdSchema, RunSummarySchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const get = protectedProcedure
  .input(z.object({ runId: RunIdSchema }))
  .output(
    RunSummarySchema.extend({
      input: z.unknown(),
      output: z.unknown(),
      memberCounts: z.record(z.string(), MemberCountsSchema),
      /** For a child run of a nested-mesh member: the parent run. */
      parentRunId: z.string().nullable(),
    }),
  )
  .query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.runId);
    if (!run) throw new RunNotFoundError(input.runId);
    return run;
  });
