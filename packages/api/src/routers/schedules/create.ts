/** schedules.create (designers and admins): a cron schedule in a time zone, with a fixed input and a missed-tick policy. */
import { z } from 'zod';
import { createSchedule } from '@trellis/engine/schedules/manage-schedules';
import { designerProcedure } from '../../trpc';
import { ScheduleInputSchema, ScheduleSchema } from './schemas';

export const create = designerProcedure
  .input(
    z.object({
      name: z.string().min(1).max(63),
      mesh: z.string().min(1).max(200),
      cron: z.string().min(1).max(200),
      timezone: z.string().min(1).max(100).default('UTC'),
      input: ScheduleInputSchema,
      missed: z.enum(['skip', 'run_once']).default('skip'),
    }),
  )
  .output(ScheduleSchema)
  .mutation(({ ctx, input }) => createSchedule(ctx.engine, { ...input, actor: { id: ctx.user.id, email: ctx.user.email } }));
