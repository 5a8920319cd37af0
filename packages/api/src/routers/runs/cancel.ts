/**
 * runs.cancel: a person cancels a running, stalled or queued run. Its open messages are set aside,
 * its running steps stopped wherever they run, its child runs cancelled with it; the run ends
 * `cancelled` with who did it and why.
 */
import { z } from 'zod';
import { cancelRun } from '@trellis/engine/runs/cancel-run';
import { RunIdSchema } from '../../schemas';
import { operatorProcedure } from '../../trpc';

export const cancel = operatorProcedure
  .input(z.object({ runId: RunIdSchema, reason: z.string().max(500).optional() }))
  .output(z.object({ runId: z.string(), status: z.literal('cancelled'), runs: z.array(z.string()), messages: z.number().int() }))
  .mutation(({ ctx, input }) => cancelRun(ctx.engine, { runId: input.runId, reason: input.reason, userId: ctx.user.id }));
