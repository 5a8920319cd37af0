/** audit.list (admins): the audit trail, newest first, filtered by person, action and time. */
import { z } from 'zod';
import { listAudit } from '@trellis/engine/audit/list-audit';
import { adminProcedure } from '../../trpc';
import { AuditEntrySchema, AuditFilterSchema } from './schemas';

export const list = adminProcedure
  .input(AuditFilterSchema)
  .output(z.array(AuditEntrySchema))
  .query(({ ctx, input }) => listAudit(ctx.db, input));
