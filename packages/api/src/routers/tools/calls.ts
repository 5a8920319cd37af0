/** tools.calls: the tool calls of a run (granted and refused), for its trail. */
import { z } from 'zod';
import { listToolCalls } from '@trellis/engine/tools/trail';
import { viewerProcedure } from '../../trpc';

export const calls = viewerProcedure
  .input(z.object({ runId: z.string().min(1) }))
  .output(
    z.array(
      z.object({
        id: z.string(),
        runId: z.string(),
        messageId: z.string().nullable(),
        member: z.string(),
        tool: z.string(),
        server: z.string().nullable(),
        outcome: z.enum(['ok', 'error', 'refused']),
        detail: z.string().nullable(),
        at: z.date(),
      }),
    ),
  )
  .query(({ ctx, input }) => listToolCalls(ctx.db, input.runId));
