/** Shapes shared by the webhooks procedures. */
import { z } from 'zod';

/** A webhook as people see it (never its secret). */
export const WebhookSchema = z.object({
  id: z.string(),
  name: z.string(),
  meshId: z.string(),
  meshName: z.string(),
  path: z.string(),
  callbackUrl: z.string().nullable(),
  enabled: z.boolean(),
  createdBy: z.string(),
  createdAt: z.date(),
});
