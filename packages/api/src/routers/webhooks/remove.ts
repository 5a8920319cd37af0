/** webhooks.remove (designers and admins): removes a webhook (by id or name) and its secret; its requests are refused from then on. */
import { z } from 'zod';
import { removeWebhook } from '@trellis/engine/webhooks/manage-webhooks';
import { designerProcedure } from '../../trpc';

export const remove = designerProcedure
  .input(z.object({ webhook: z.string().min(1).max(200) }))
  .output(z.object({ id: z.string() }))
  .mutation(({ ctx, input }) => removeWebhook(ctx.engine, { webhook: input.webhook, actor: { id: ctx.user.id, email: ctx.user.email } }));
