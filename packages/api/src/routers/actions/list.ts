/** actions.list: Action Center items (failure groups and approval requests) with their runs and history. */
import { z } from 'zod';
import { listActionItems } from '@trellis/engine/ops/action-items';
import { viewerProcedure } from '../../trpc';

export const list = viewerProcedure
  .input(
    z.object({
      state: z.enum(['active', 'resolved', 'all']).default('active'),
      kind: z.enum(['failure', 'approval']).optional(),
      limit: z.number().int().min(1).max(500).default(100),
    }),
  )
  .query(({ ctx, input }) => listActionItems(ctx.db, input));
