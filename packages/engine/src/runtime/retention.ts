/**
 * Retention: the messages, join parts and joins of finished runs are pruned some days after the run
 * ended (TRELLIS_RETENTION_DAYS), and those of runs with dead-lettered or lost messages, or that
 * failed, later (TRELLIS_RETENTION_DEAD_DAYS), so they can still be re-opened meanwhile. The run
 * row stays with its input, output and cause; its counts are stored on it first (`runs.summary`)
 * and `runs.pruned_at` says the trail is gone. Runs in a bounded batch per pass, oldest ended
 * first, one transaction per run; plain deletes on both databases (time partitioning of the
 * message tables is the documented next step, docs/benchmarks.md).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { rows } from '../kernel/sql';
import { msgStatuses, runStatus, runStatuses } from '../kernel/statuses';
import { countRun } from '../runs/counts';
import type { StoredSummary } from '../runs/summary';

/** Retention policy: days after a run ended; 0 = never. */
export interface RetentionPolicy {
  /** A done, failed or cancelled run without dead-lettered or lost messages. */
  days: number;
  /** A failed run, or one with dead-lettered or lost messages. */
  deadDays: number;
  /** Most runs pruned in one call (default 20). */
  batch?: number;
}

/** What one call pruned. */
export interface PruneResult {
  runs: string[];
  messages: number;
  joinParts: number;
}

/**
 * Prunes up to `policy.batch` runs whose retention has passed: stores each one's counts on its row,
 * sets `pruned_at`, and deletes its join parts, joins and messages, in one transaction per run. A
 * run still queued, running or stalled is never touched, nor one already pruned.
 * @throws Error when a day count is negative or not a number.
 */
export async function pruneRuns(db: Db, policy: RetentionPolicy): Promise<PruneResult> {
  for (const [field, v] of [
    ['days', policy.days],
    ['deadDays', policy.deadDays],
  ] as const) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`retention ${field}: expected a non-negative number of days, got ${v}`);
  }
  const out: PruneResult = { runs: [], messages: 0, joinParts: 0 };
  if (policy.days === 0 && policy.deadDays === 0) return out;
  const limit = policy.batch ?? 20;
  // A dead run: failed, or holding a dead-lettered or lost message (a probe into messages_open_idx).
  const dead = sql`(r.status = ${runStatus('failed')} or exists (select 1 from messages m where m.run_id = r.id and m.status in ${msgStatuses('dead', 'lost')}))`;
  const older = (days: number) => (days > 0 ? sql`r.ended_at < now() - make_interval(secs => ${days * 86_400})` : sql`false`);
  // The shorter of the two ages first, so the ended-at index narrows the scan before the per-run check.
  const soonest = Math.min(...[policy.days, policy.deadDays].filter((d) => d > 0));
  const due = await rows(
    db,
    sql`select r.id from runs r
         where r.status in ${runStatuses('done', 'failed', 'cancelled')} and r.pruned_at is null and r.ended_at is not null
           and ${older(soonest)}
           and case when ${dead} then ${older(policy.deadDays)} else ${older(policy.days)} end
         order by r.ended_at, r.id
         limit ${limit}`,
    z.object({ id: z.string() }),
  );
  for (const { id } of due) {
    const summary: StoredSummary = await countRun(db, id);
    const pruned = await db.transaction(async (tx) => {
      // The status check under the row lock: a run re-opened meanwhile is left alone.
      const marked = await rows(
        tx,
        sql`update runs set pruned_at = now(), summary = ${JSON.stringify(summary)}::jsonb
             where id = ${id} and pruned_at is null and status in ${runStatuses('done', 'failed', 'cancelled')}
         returning id`,
        z.object({ id: z.string() }),
      );
      if (marked.length === 0) return null;
      // By key (join_parts_key_idx): a part is stored under the key of a join of its run, in the same transaction.
      const parts = await rows(
        tx,
        sql`with d as (delete from join_parts where key in (select key from joins where run_id = ${id}) and run_id = ${id} returning 1)
            select count(*)::int as n from d`,
        z.object({ n: z.number() }),
      );
      await tx.execute(sql`delete from joins where run_id = ${id}`);
      const msgs = await rows(tx, sql`with d as (delete from messages where run_id = ${id} returning 1) select count(*)::int as n from d`, z.object({ n: z.number() }));
      return { parts: parts[0]?.n ?? 0, messages: msgs[0]?.n ?? 0 };
    });
    if (!pruned) continue;
    out.runs.push(id);
    out.messages += pruned.messages;
    out.joinParts += pruned.parts;
  }
  return out;
}
