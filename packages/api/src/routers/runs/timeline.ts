/**
 * runs.timeline: a run's waterfall (one row per member: start, end, retries, parked time, where it
 * failed) and its throughput per time bucket, aggregated in SQL (engine runs/run-timeline.ts), so the
 * answer stays small whatever the run's size. Polled while the run goes.
 */
import { z } from 'zod';
import { RunNotFoundError } from '@trellis/engine/errors';
import { runTimeline } from '@trellis/engine/runs/run-timeline';
import { RunIdSchema } from '../../schemas';
import { viewerProcedure } from '../../trpc';

const Cell = z.object({ bucket: z.number().int(), done: z.number().int(), failed: z.number().int() });

export const timeline = viewerProcedure
  .input(z.object({ runId: RunIdSchema }))
  .output(
    z.object({
      runId: z.string(),
      status: z.string(),
      createdAt: z.date(),
      startedAt: z.number().nullable(),
      endedAt: z.number().nullable(),
      now: z.number(),
      causeMember: z.string().nullable(),
      bucketSeconds: z.number().positive(),
      members: z.array(
        z.object({
          member: z.string(),
          firstAt: z.number(),
          startedAt: z.number().nullable(),
          endedAt: z.number().nullable(),
          lastAt: z.number().nullable(),
          messages: z.number().int(),
          done: z.number().int(),
          dead: z.number().int(),
          lost: z.number().int(),
          open: z.number().int(),
          retries: z.number().int(),
          retried: z.number().int(),
          parks: z.boolean(),
          parkedSeconds: z.number(),
          failedAt: z.number().nullable(),
          error: z.string().nullable(),
        }),
      ),
      throughput: z.array(Cell),
      waves: z.array(Cell.extend({ member: z.string() })),
      reopens: z.array(z.object({ attempt: z.number().int(), at: z.number() })),
    }),
  )
  .query(async ({ ctx, input }) => {
    const found = await runTimeline(ctx.db, input.runId);
    if (!found) throw new RunNotFoundError(input.runId);
    return found;
  });
