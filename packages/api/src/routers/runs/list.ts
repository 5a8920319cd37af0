/** runs.list: runs newest first with their counts, filtered by status or mesh, a page at a time. */
import { z } from 'zod';
import { listRuns } from '@trellis/engine/runs/list-runs';
import { MeshIdSchema, RUN_STATUSES, RunSummarySchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const list = protectedProcedure
  .input(
    z.object({
      status: z.enum(RUN_STATUSES).optional(),
      meshId: MeshIdSchema.optional(),
      limit: z.number().int().min(1).max(200).default(25),
      offset: z.number().int().nonnegative().default(0),
    }),
  )
  .output(z.object({ items: z.array(RunSummarySchema), total: z.number().int() }))
  .query(({ ctx, input }) => listRuns(ctx.db, input));
