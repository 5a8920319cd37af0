/** schedules.setEnabled (designers and admins): pauses or resumes a schedule; resuming starts from the next tick after now. */
import { z } from 'zod';
import { setScheduleEnabled } from '@trellis/engine/schedules/manage-schedules';
import { designerProcedure } from '../../trpc';
import { ScheduleSchema } from './schemas';

export const setEnabled = designerProcedure
  .input(z.object({ schedule: z.string().min(1).max(200), enabled: z.boolean() }))
  .output(ScheduleSchema)
  .mutation(({ ctx, input }) => setScheduleEnabled(ctx.engine, { ...input, actor: { id: ctx.user.id, email: ctx.user.email } }));
