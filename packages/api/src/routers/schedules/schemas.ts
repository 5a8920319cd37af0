/** Shapes shared by the schedules procedures. */
import { z } from 'zod';

/** A schedule's fixed input: text or a JSON object. */
export const ScheduleInputSchema = z.object({ name: z.string().max(200).optional(), text: z.string().optional(), payload: z.record(z.string(), z.unknown()).optional() });

export const ScheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  meshId: z.string(),
  meshName: z.string(),
  cron: z.string(),
  timezone: z.string(),
  input: ScheduleInputSchema,
  missed: z.enum(['skip', 'run_once']),
  enabled: z.boolean(),
  nextAt: z.date().nullable(),
  lastTickAt: z.date().nullable(),
  lastRunId: z.string().nullable(),
  lastError: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.date(),
});
