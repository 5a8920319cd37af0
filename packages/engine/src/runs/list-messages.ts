/** Use case: the message trail of a run, page by page. */
import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { messages } from '@trellis/db/schema/messages';

/** Filters and paging (limit 1–1000, default 100). */
export interface ListMessagesInput {
  runId: string;
  /** pending | running | done | dead | lost | parked | cancelled */
  status?: string;
  member?: string;
  limit?: number;
  offset?: number;
}

/** One message of the trail. */
export type MessageView = typeof messages.$inferSelect;

/** Messages in the order they were published, and how many match in total. */
export async function listMessages(db: Db, input: ListMessagesInput): Promise<{ items: MessageView[]; total: number }> {
  const filters: SQL[] = [eq(messages.runId, input.runId)];
  if (input.status) filters.push(eq(messages.status, input.status));
  if (input.member) filters.push(eq(messages.member, input.member));
  const where = and(...filters);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 1000);
  const items = await db
    .select()
    .from(messages)
    .where(where)
    .orderBy(asc(messages.createdAt), asc(messages.depth), asc(messages.seq), asc(messages.id))
    .limit(limit)
    .offset(Math.max(input.offset ?? 0, 0));
  const [total] = await db.select({ n: count() }).from(messages).where(where);
  return { items, total: total?.n ?? 0 };
}
