/** schedules.list (every role): every schedule with its next tick, last run and last error. */
import { z } from 'zod';
import { listSchedules } from '@trellis/engine/schedules/manage-schedules';
import { viewerProcedure } from '../../trpc';
import { ScheduleSchema } from './schemas';

export const list = viewerProcedure.output(z.array(ScheduleSchema)).query(({ ctx }) => listSchedules(ctx.engine));
