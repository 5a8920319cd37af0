/** Output shapes of the tools router. */
import { z } from 'zod';
import { ToolServerConfigSchema } from '@trellis/engine/tools/registry';

/** A registered tool server as the admin page shows it. */
export const ToolServerViewSchema = z.object({
  name: z.string(),
  config: ToolServerConfigSchema,
  createdBy: z.string().nullable(),
  updatedAt: z.date(),
});
