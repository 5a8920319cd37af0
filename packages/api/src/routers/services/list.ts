/** services.list: registered outside services (name, key prefix, when added; never a key). */
import { z } from 'zod';
import { listServices } from '@trellis/engine/services/registry';
import { viewerProcedure } from '../../trpc';

export const list = viewerProcedure
  .output(z.array(z.object({ name: z.string(), keyPrefix: z.string(), createdBy: z.string().nullable(), createdAt: z.date() })))
  .query(({ ctx }) => listServices(ctx.db));
