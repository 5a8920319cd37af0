/**
 * webhooks.create (designers and admins): a signed webhook starting runs of a mesh, with an
 * optional callback URL (reached under the egress policy). Answers the secret this once.
 */
import { z } from 'zod';
import { createWebhook } from '@trellis/engine/webhooks/manage-webhooks';
import { designerProcedure } from '../../trpc';
import { WebhookSchema } from './schemas';

export const create = designerProcedure
  .input(z.object({ name: z.string().min(1).max(63), mesh: z.string().min(1).max(200), callbackUrl: z.string().max(2000).nullable().optional() }))
  .output(WebhookSchema.extend({ secret: z.string() }))
  .mutation(({ ctx, input }) => createWebhook(ctx.engine, { ...input, actor: { id: ctx.user.id, email: ctx.user.email } }));
