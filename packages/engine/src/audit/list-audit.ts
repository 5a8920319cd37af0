/** The Audit page's query: entries newest first, filtered by person, action and time. */
import { and, desc, eq, gte, like, lt, lte, type SQL } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { auditLog } from '@trellis/db/schema/audit-log';

/** Filters; `action` ending in `.` matches every action under it (e.g. `user.`). */
export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Only entries before this sequence number (the next page). */
  before?: number | undefined;
  limit?: number | undefined;
}

/** One entry as shown and exported. */
export type AuditEntry = typeof auditLog.$inferSelect;

/** Entries matching `filter`, newest first, at most `limit` (default 100, most 1000). */
export function listAudit(db: Db, filter: AuditFilter = {}): Promise<AuditEntry[]> {
  const where: SQL[] = [];
  if (filter.actor) where.push(eq(auditLog.actorEmail, filter.actor.trim().toLowerCase()));
  if (filter.action) where.push(filter.action.endsWith('.') ? like(auditLog.action, `${filter.action}%`) : eq(auditLog.action, filter.action));
  if (filter.since) where.push(gte(auditLog.at, filter.since));
  if (filter.until) where.push(lte(auditLog.at, filter.until));
  if (filter.before) where.push(lt(auditLog.seq, filter.before));
  return db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.seq))
    .limit(Math.min(Math.max(filter.limit ?? 100, 1), 1000));
}
