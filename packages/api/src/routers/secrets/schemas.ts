/** Shapes shared by the secrets procedures: what an admin sees of an entry (never its value). */
import { z } from 'zod';

/** `secret` (sent by steps to its hosts) or `connection` (a database URL for SQL steps). */
export const SecretKindSchema = z.enum(['secret', 'connection']);

/** An entry without its value. */
export const SecretInfoSchema = z.object({
  kind: SecretKindSchema,
  name: z.string(),
  hosts: z.array(z.string()),
  createdBy: z.string(),
  updatedBy: z.string(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
