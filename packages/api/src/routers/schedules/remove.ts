/** schedules.remove (designers and admins): removes a schedule (by id or name). */
import { z } from 'zod';
import { removeSchedule } from '@trellis/engine/schedules/manage-schedules';
import { designerProcedure } from '../../trpc';

export const remove = designerProcedure
  .input(z.object({ schedule: z.string().min(1).max(200) }))
  .output(z.object({ id: z.string() }))
  .mutation(({ ctx, input }) => removeSchedule(ctx.engine, { schedule: input.schedule, actor: { id: ctx.user.id, email: ctx.user.email } }));
