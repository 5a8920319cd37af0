/** exceptions.feed: failed and stalled runs grouped per mesh and cause over a window, with a trend. */
import { z } from 'zod';
import { CAUSES } from '@trellis/mesh/causes';
import { exceptionsFeed } from '@trellis/engine/ops/exceptions-feed';
import { MeshIdSchema } from '../../schemas';
import { viewerProcedure } from '../../trpc';

const DAY = 86_400_000;

export const feed = viewerProcedure
  .input(
    z
      .object({ from: z.date(), to: z.date(), meshId: MeshIdSchema.optional() })
      .refine((w) => w.to.getTime() > w.from.getTime(), { message: 'expected a time after from', path: ['to'] })
      .refine((w) => w.to.getTime() - w.from.getTime() <= 366 * DAY, { message: 'expected a window of at most 366 days', path: ['from'] }),
  )
  .output(
    z.object({
      bucket: z.enum(['hour', 'day']),
      buckets: z.array(z.date()),
      groups: z.array(
        z.object({
          meshId: z.string(),
          meshName: z.string(),
          cause: z.enum(CAUSES),
          severity: z.enum(['critical', 'project', 'capacity']),
          whoActs: z.string(),
          count: z.number().int(),
          firstSeen: z.date(),
          lastSeen: z.date(),
          sentence: z.string(),
          samples: z.array(z.object({ id: z.string(), at: z.date(), sentence: z.string().nullable(), inputName: z.string().nullable() })),
          trend: z.array(z.number().int()),
        }),
      ),
    }),
  )
  .query(({ ctx, input }) => exceptionsFeed(ctx.db, input));
