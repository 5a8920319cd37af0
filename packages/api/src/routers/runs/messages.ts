/** runs.messages: a run's message trail in publishing order, a page at a time. */
import { z } from 'zod';
import { listMessages } from '@trellis/engine/runs/list-messages';
import { MESSAGE_STATUSES, RunIdSchema } from '../../schemas';
import { viewerProcedure } from '../../trpc';

export const messages = viewerProcedure
  .input(
    z.object({
      runId: RunIdSchema,
      status: z.enum(MESSAGE_STATUSES).optional(),
      member: z.string().max(63).optional(),
      limit: z.number().int().min(1).max(500).default(50),
      offset: z.number().int().nonnegative().default(0),
    }),
  )
  .output(
    z.object({
      items: z.array(
        z.object({
          id: z.string(),
          member: z.string(),
          channel: z.string().nullable(),
          seq: z.number().int(),
          parentId: z.string().nullable(),
          depth: z.number().int(),
          status: z.string(),
          attempts: z.number().int(),
          error: z.string().nullable(),
          createdAt: z.date(),
          startedAt: z.date().nullable(),
          finishedAt: z.date().nullable(),
          /** The child run a nested-mesh member started for this message. */
          childRunId: z.string().nullable(),
          /** The job of an outside-service member: waiting | claimed | done | failed | expired. */
          serviceJob: z.object({ status: z.string(), claimedBy: z.string().nullable(), leaseUntil: z.date().nullable() }).nullable(),
        }),
      ),
      total: z.number().int(),
    }),
  )
  .query(({ ctx, input }) => listMessages(ctx.db, input));
