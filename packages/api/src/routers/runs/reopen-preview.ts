/**
 * runs.reopenPreview: what a re-open would do, for the confirmation dialog: how many runs, from
 * which member(s), on which version, and which runs would be refused and why. Changes nothing.
 */
import { z } from 'zod';
import { previewReopen } from '@trellis/engine/runs/reopen-run';
import { ReopenInputSchema, ReopenItemSchema, ReopenRefusalSchema } from './reopen-schemas';
import { viewerProcedure } from '../../trpc';

export const reopenPreview = viewerProcedure
  .input(ReopenInputSchema)
  .output(
    z.object({
      version: z.enum(['pinned', 'latest']),
      runs: z.number().int(),
      members: z.array(z.object({ member: z.string(), runs: z.number().int(), messages: z.number().int(), failedIn: z.number().int() })),
      summary: z.string(),
      items: z.array(ReopenItemSchema),
      refused: z.array(ReopenRefusalSchema),
    }),
  )
  .query(({ ctx, input }) => previewReopen(ctx.db, input));
