/** Input and output shapes shared by runs.reopen and runs.reopenPreview. */
import { z } from 'zod';
import { RunIdSchema } from '../../schemas';

/** `{ runIds: 1–1,000 run ids, version: 'pinned' | 'latest' }`. */
export const ReopenInputSchema = z.object({
  runIds: z.array(RunIdSchema).min(1).max(1000),
  version: z.enum(['pinned', 'latest']),
});

export const ReopenItemSchema = z.object({
  runId: z.string(),
  meshId: z.string(),
  meshName: z.string(),
  status: z.string(),
  cause: z.string().nullable(),
  fromVersion: z.number().int(),
  toVersion: z.number().int(),
  failedMember: z.string().nullable(),
  members: z.array(z.string()),
  messages: z.number().int(),
  messagesByMember: z.record(z.string(), z.number().int()),
});

export const ReopenRefusalSchema = z.object({ runId: z.string(), reason: z.string() });
