/** tools.list (admins only): the registered MCP tool servers; secrets appear by store name only. */
import { z } from 'zod';
import { listToolServers } from '@trellis/engine/tools/registry';
import { adminProcedure } from '../../trpc';
import { ToolServerViewSchema } from './schemas';

export const list = adminProcedure
  .output(z.array(ToolServerViewSchema))
  .query(({ ctx }) => listToolServers(ctx.db));
