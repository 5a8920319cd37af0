/** tools.put (admins only): registers an MCP tool server by name, or replaces its settings. */
import { z } from 'zod';
import { putToolServer, ToolServerConfigSchema } from '@trellis/engine/tools/registry';
import { IdSchema } from '@trellis/mesh/schema';
import { adminProcedure } from '../../trpc';
import { ToolServerViewSchema } from './schemas';

export const put = adminProcedure
  .input(z.object({ name: IdSchema, config: ToolServerConfigSchema }))
  .output(ToolServerViewSchema)
  .mutation(({ ctx, input }) => putToolServer(ctx.db, { name: input.name, config: input.config, userId: ctx.user.id }));
