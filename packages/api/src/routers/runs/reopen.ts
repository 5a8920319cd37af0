/**
 * runs.reopen: re-opens failed or stalled runs from their failed step, on the run's own mesh version
 * (`pinned`) or the latest saved one (`latest`). Runs that cannot be re-opened come back in
 * `refused` with the reason; the others are re-opened (bulk re-open from the Runs tab or the Action
 * Center sends many ids at once).
 */
import { z } from 'zod';
import { reopenRuns } from '@trellis/engine/runs/reopen-run';
import { ReopenInputSchema, ReopenItemSchema, ReopenRefusalSchema } from './reopen-schemas';
import { operatorProcedure } from '../../trpc';

export const reopen = operatorProcedure
  .input(ReopenInputSchema)
  .output(
    z.object({
      reopened: z.array(ReopenItemSchema.extend({ attempt: z.number().int() })),
      refused: z.array(ReopenRefusalSchema),
    }),
  )
  .mutation(({ ctx, input }) => reopenRuns(ctx.engine, { ...input, userId: ctx.user.id }));
