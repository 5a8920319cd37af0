/** webhooks.list (designers and admins): every signed webhook with its mesh, path and callback URL; never a secret. */
import { z } from 'zod';
import { listWebhooks } from '@trellis/engine/webhooks/manage-webhooks';
import { designerProcedure } from '../../trpc';
import { WebhookSchema } from './schemas';

export const list = designerProcedure.output(z.array(WebhookSchema)).query(({ ctx }) => listWebhooks(ctx.engine));
