/** Use case: list runs, newest first, with their counts. */
import { isRunStatus } from '@trellis/db/schema/statuses';
import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { runs } from '@trellis/db/schema/runs';
import { countRuns, emptyCounts } from './counts';
import { summarize, type RunSummary } from './get-run';

/** Filters and paging (limit 1–500, default 50). */
export interface ListRunsInput {
  status?: string;
  meshId?: string;
  cause?: string;
  limit?: number;
  offset?: number;
}

/** A page of runs and how many match in total. */
export async function listRuns(db: Db, input: ListRunsInput = {}): Promise<{ items: RunSummary[]; total: number }> {
  const filters: SQL[] = [];
  if (input.status) filters.push(isRunStatus(input.status) ? eq(runs.status, input.status) : sql`false`);
  if (input.meshId) filters.push(eq(runs.meshId, input.meshId));
  if (input.cause) filters.push(eq(runs.cause, input.cause));
  const where = filters.length ? and(...filters) : undefined;
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 500);
  const rows = await db
    .select()
    .from(runs)
    .where(where)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit)
    .offset(Math.max(input.offset ?? 0, 0));
  const [total] = await db.select({ n: count() }).from(runs).where(where);
  const counts = await countRuns(db, rows.map((r) => r.id));
  return { items: rows.map((r) => summarize(r, counts.get(r.id) ?? emptyCounts())), total: total?.n ?? 0 };
}
