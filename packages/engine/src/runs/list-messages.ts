/** Use case: the message trail of a run, page by page. */
import { isMessageStatus } from '@trellis/db/schema/statuses';
import { and, asc, count, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { messages } from '@trellis/db/schema/messages';
import { runs } from '@trellis/db/schema/runs';
import { serviceJobs } from '@trellis/db/schema/services';
import { stripPrototypeKeys } from '../security/json-guard';

/** Filters and paging (limit 1–1000, default 100). */
export interface ListMessagesInput {
  runId: string;
  /** pending | running | done | dead | lost | parked | cancelled */
  status?: string;
  member?: string;
  limit?: number;
  offset?: number;
}

/**
 * One message of the trail; `childRunId` is the child run a nested-mesh member started for it,
 * `serviceJob` the state of an outside-service member's job (waiting | claimed | done | failed | expired).
 */
export type MessageView = typeof messages.$inferSelect & {
  childRunId: string | null;
  serviceJob: { status: string; claimedBy: string | null; leaseUntil: Date | null } | null;
};

/** Messages in the order they were published, and how many match in total. */
export async function listMessages(db: Db, input: ListMessagesInput): Promise<{ items: MessageView[]; total: number }> {
  const filters: SQL[] = [eq(messages.runId, input.runId)];
  if (input.status) filters.push(isMessageStatus(input.status) ? eq(messages.status, input.status) : sql`false`);
  if (input.member) filters.push(eq(messages.member, input.member));
  const where = and(...filters);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 1000);
  const rows = await db
    .select({
      ...getTableColumns(messages),
      childRunId: runs.id,
      jobStatus: serviceJobs.status,
      jobClaimedBy: serviceJobs.claimedBy,
      jobLeaseUntil: serviceJobs.leaseUntil,
    })
    .from(messages)
    .leftJoin(runs, eq(runs.parentMessageId, messages.id))
    .leftJoin(serviceJobs, eq(serviceJobs.id, messages.id))
    .where(where)
    .orderBy(asc(messages.createdAt), asc(messages.depth), asc(messages.seq), asc(messages.id))
    .limit(limit)
    .offset(Math.max(input.offset ?? 0, 0));
  const [total] = await db.select({ n: count() }).from(messages).where(where);
  return {
    items: rows.map(({ jobStatus, jobClaimedBy, jobLeaseUntil, ...m }) => ({
      ...m,
      // Rows stored before outputs were cleaned may hold prototype keys, which the page's serializer refuses.
      payload: stripPrototypeKeys(m.payload),
      serviceJob: jobStatus === null ? null : { status: jobStatus, claimedBy: jobClaimedBy, leaseUntil: jobLeaseUntil },
    })),
    total: total?.n ?? 0,
  };
}
