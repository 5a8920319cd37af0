/**
 * GET /api/v1/audit — the audit trail as JSON, for export (admins; a session or an `admin` token).
 * The same filters as the Audit page; each entry carries its hashes, so an export can be re-verified.
 */
import { z } from 'zod';
import { listAudit } from '@trellis/engine/audit/list-audit';
import { AuditEntrySchema, AuditFilterSchema } from '../routers/audit/schemas';
import { defineRoute } from './contract';

export const auditExportRoute = defineRoute({
  method: 'get',
  path: '/api/v1/audit',
  summary: 'Export the audit trail (admins), newest first.',
  auth: 'admin',
  query: AuditFilterSchema,
  response: {
    status: 200,
    description: 'The entries.',
    schema: z.object({ entries: z.array(AuditEntrySchema.extend({ at: z.string() })) }),
  },
  errors: { 400: 'A filter is malformed.', 401: 'Not signed in.', 403: 'Not an admin (or the token lacks scope "admin").' },
  async handle({ engine, query }) {
    const entries = await listAudit((await engine()).db, query);
    return { entries: entries.map((e) => ({ ...e, at: e.at.toISOString() })) };
  },
});
