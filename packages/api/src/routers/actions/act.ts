/**
 * actions.act: acknowledge, assign, resolve with a comment, or record a re-open done through
 * runs.reopen; recorded with the signed-in person and the time.
 */
import { z } from 'zod';
import { actOnItem } from '@trellis/engine/ops/action-items';
import { RunIdSchema } from '../../schemas';
import { operatorProcedure } from '../../trpc';

const ItemId = z.string().min(1).max(200);

export const act = operatorProcedure
  .input(
    z.discriminatedUnion('action', [
      z.object({ itemId: ItemId, action: z.literal('acknowledge') }),
      z.object({ itemId: ItemId, action: z.literal('assign'), assignee: z.string().min(1).max(64) }),
      z.object({ itemId: ItemId, action: z.literal('resolve'), comment: z.string().trim().min(1, 'say how it was resolved').max(2000) }),
      z.object({ itemId: ItemId, action: z.literal('reopened'), runIds: z.array(RunIdSchema).min(1).max(1000) }),
    ]),
  )
  .output(z.object({ id: z.string(), state: z.string() }))
  .mutation(({ ctx, input }) => actOnItem(ctx.db, { ...input, userId: ctx.user.id }));
