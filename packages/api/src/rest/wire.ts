/**
 * JSON shapes of the REST answers that carry runs: the same fields as the tRPC schemas, with times
 * as ISO 8601 strings (a REST answer is plain JSON).
 */
import { z } from 'zod';
import { RunCountsSchema, RunSummarySchema } from '../schemas';

/** An ISO 8601 time. */
export const IsoTime = z.string().meta({ description: 'ISO 8601 time.', examples: ['2026-12-01T19:30:00.000Z'] });

/** `date` as ISO text, keeping null. */
export function iso<D extends Date | null>(date: D): D extends Date ? string : string | null {
  return (date ? date.toISOString() : null) as D extends Date ? string : string | null;
}

/** The one answer shape of every entry point: the run, its status, and whether the idempotency key named an earlier one. */
export const EntryAnswerSchema = z
  .object({
    runId: z.string(),
    status: z.string().meta({ description: 'queued | running | done | failed | stalled | cancelled' }),
    reused: z.boolean().meta({ description: 'True when the Idempotency-Key named a run started before; nothing new was started.' }),
  })
  .meta({ id: 'StartedRun' });

/** A run's answer (engine runs/wait-answer.ts). */
export const RunAnswerSchema = z
  .object({
    runId: z.string(),
    meshId: z.string(),
    meshName: z.string(),
    meshVersion: z.number().int(),
    status: z.string().meta({ description: 'queued | running | done | failed | stalled | cancelled' }),
    ended: z.boolean().meta({ description: 'True once the status is final.' }),
    cause: z.string().nullable().meta({ description: 'One of the cause list when the run failed or stalled.' }),
    causeMember: z.string().nullable(),
    causeMessage: z.string().nullable().meta({ description: 'One plain sentence naming the member and the detail.' }),
    counts: RunCountsSchema,
    output: z.unknown().meta({ description: "The run's output (its leaf's payload) once done, else null." }),
    seconds: z.number(),
  })
  .meta({ id: 'RunAnswer' });

/** A run in a list (the Runs tab's row): the tRPC summary with ISO times and its severity. */
export const RunRowSchema = RunSummarySchema.omit({ createdAt: true, startedAt: true, endedAt: true, movedAt: true, prunedAt: true })
  .extend({
    severity: z.enum(['critical', 'project', 'capacity']).nullable(),
    createdAt: IsoTime,
    startedAt: IsoTime.nullable(),
    endedAt: IsoTime.nullable(),
    movedAt: IsoTime,
    prunedAt: IsoTime.nullable().meta({ description: "When retention pruned the run's message trail, else null." }),
  })
  .meta({ id: 'RunRow' });
