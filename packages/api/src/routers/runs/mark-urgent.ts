/**
 * runs.markUrgent: a person marks runs urgent (the run page's button, the Runs tab's bulk action).
 * Their messages go ahead of normal work on every pool they reach, within the share normal work
 * keeps (engine runs/mark-urgent.ts); runs that have ended or do not exist come back refused.
 */
import { z } from 'zod';
import { MARK_URGENT_MAX, markUrgentRuns } from '@trellis/engine/runs/mark-urgent';
import { RunIdSchema } from '../../schemas';
import { operatorProcedure } from '../../trpc';

export const markUrgent = operatorProcedure
  .input(z.object({ runIds: z.array(RunIdSchema).min(1).max(MARK_URGENT_MAX) }))
  .output(z.object({ marked: z.array(z.string()), refused: z.array(z.object({ runId: z.string(), reason: z.string() })), moved: z.number().int() }))
  .mutation(({ ctx, input }) => markUrgentRuns(ctx.engine, { runIds: input.runIds, userId: ctx.user.id }));
