/** Shapes of the audit procedures and the export route. */
import { z } from 'zod';

/** Filters of the Audit page and the export. */
export const AuditFilterSchema = z.object({
  actor: z.string().trim().max(320).optional().meta({ description: "The acting person's email." }),
  action: z.string().trim().max(100).optional().meta({ description: 'An action, e.g. `user.role`, or a prefix ending in `.`, e.g. `user.`.' }),
  since: z.coerce.date().optional().meta({ description: 'From this time (ISO 8601).' }),
  until: z.coerce.date().optional().meta({ description: 'Up to this time (ISO 8601).' }),
  before: z.coerce.number().int().positive().optional().meta({ description: 'Only entries before this sequence number (the next page).' }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** One audit entry. */
export const AuditEntrySchema = z
  .object({
    seq: z.number().int(),
    at: z.date(),
    actorId: z.string().nullable(),
    actorEmail: z.string().nullable(),
    action: z.string(),
    target: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditEntry' });
