/**
 * Use case: the Runs tab. Filters (mesh, status, cause, severity = the set of causes of that
 * severity, time range on the run's creation), search (run id prefix, or input name prefix, case
 * insensitive), four sorts, and offset paging done by the database. Every filter and sort has an
 * index (packages/db schema/runs.ts); `npm run bench:runs` measures it at 100,000 runs.
 */
import { isRunStatus } from '@trellis/db/schema/statuses';
import { and, asc, count, desc, eq, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { CAUSES, causeInfo, type CauseSeverity } from '@trellis/mesh/causes';
import type { Db } from '@trellis/db/client';
import { runs } from '@trellis/db/schema/runs';
import { countRuns, emptyCounts } from '../runs/counts';
import { summarize, type RunSummary } from '../runs/get-run';

/** Sort keys: `started` (creation time), `ended`, `duration` (runs not ended sort as the latest/longest), `status`. */
export const RUN_SORTS = ['started', 'ended', 'duration', 'status'] as const;
export type RunSort = (typeof RUN_SORTS)[number];

/** What the Runs tab asks for. `limit` 1–200 (default 25). */
export interface SearchRunsInput {
  meshId?: string | undefined;
  status?: string | undefined;
  cause?: string | undefined;
  severity?: CauseSeverity | undefined;
  /** Created at or after. */
  from?: Date | undefined;
  /** Created before. */
  to?: Date | undefined;
  /** A run id prefix or an input name prefix (at least 1 character). */
  search?: string | undefined;
  sort?: RunSort | undefined;
  direction?: 'asc' | 'desc' | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** A page, the total that matches, and each run's severity. */
export interface SearchRunsResult {
  items: (RunSummary & { severity: CauseSeverity | null })[];
  total: number;
}

/** Escapes LIKE wildcards so a search is a plain prefix. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The where clause of a search (shared with the benchmark's EXPLAIN). */
export function searchFilter(input: SearchRunsInput): SQL | undefined {
  const f: SQL[] = [];
  if (input.meshId) f.push(eq(runs.meshId, input.meshId));
  if (input.status) f.push(isRunStatus(input.status) ? eq(runs.status, input.status) : sql`false`);
  if (input.cause) f.push(eq(runs.cause, input.cause));
  if (input.severity) {
    const severity = input.severity;
    f.push(inArray(runs.cause, CAUSES.filter((c) => causeInfo(c).severity === severity)));
  }
  if (input.from) f.push(gte(runs.createdAt, input.from));
  if (input.to) f.push(lt(runs.createdAt, input.to));
  const q = input.search?.trim();
  if (q) {
    const prefix = likePrefix(q);
    f.push(or(sql`${runs.id} like ${prefix}`, sql`lower(${runs.inputName}) like ${likePrefix(q.toLowerCase())}`) as SQL);
  }
  return f.length ? and(...f) : undefined;
}

/** The order by of a search: each sort ends with the run id so pages never overlap. */
export function searchOrder(input: SearchRunsInput): SQL[] {
  const dir = input.direction === 'asc' ? asc : desc;
  switch (input.sort ?? 'started') {
    case 'started':
      return [dir(runs.createdAt), dir(runs.id)];
    // Postgres's own null order (runs not ended yet count as the latest), so one index serves both
    // directions by scanning it forwards or backwards.
    case 'ended':
      return [dir(runs.endedAt), dir(runs.id)];
    case 'duration':
      return [dir(sql`(${runs.endedAt} - coalesce(${runs.startedAt}, ${runs.createdAt}))`), dir(runs.id)];
    case 'status':
      return [dir(runs.status), dir(runs.createdAt), dir(runs.id)];
  }
}

/**
 * A page of runs matching the filters, in the chosen order, with counts and severity.
 * @throws Error naming `search` when the search text is longer than 200 characters.
 */
export async function searchRuns(db: Db, input: SearchRunsInput = {}): Promise<SearchRunsResult> {
  if ((input.search?.length ?? 0) > 200) throw new Error('search: expected at most 200 characters');
  const where = searchFilter(input);
  const limit = Math.min(Math.max(input.limit ?? 25, 1), 200);
  const page = await db
    .select()
    .from(runs)
    .where(where)
    .orderBy(...searchOrder(input))
    .limit(limit)
    .offset(Math.max(input.offset ?? 0, 0));
  const [total] = await db.select({ n: count() }).from(runs).where(where);
  const counts = await countRuns(db, page.map((r) => r.id));
  return {
    items: page.map((r) => {
      const summary = summarize(r, counts.get(r.id) ?? emptyCounts());
      const cause = r.cause;
      const severity = cause && (CAUSES as readonly string[]).includes(cause) ? causeInfo(cause as (typeof CAUSES)[number]).severity : null;
      return { ...summary, severity };
    }),
    total: total?.n ?? 0,
  };
}
