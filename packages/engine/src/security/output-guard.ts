/**
 * Caps on what one member may send and on the messages of one run, and the cleaning of step
 * outputs before they are stored (a `__proto__` key in a payload once made a run's page fail).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { StepError } from '../kernel/errors';
import type { Item } from '../plan/frames';
import type { RunEndActions } from '../members/types';
import { rows, textArray, type Queryable } from '../kernel/sql';
import { LIMIT_VARIABLE, limits } from './env';
import { stripPrototypeKeys } from './json-guard';

const CountedRow = z.object({ id: z.string(), message_count: z.number() });

/**
 * A member's outputs, checked against TRELLIS_MAX_SPLIT_BRANCHES and with prototype keys removed
 * from every payload.
 * @throws StepError `budget_spent` (not retryable) naming the member, the count and the cap.
 */
export function guardItems(member: string, items: Item[]): Item[] {
  const cap = limits().maxSplitBranches;
  if (items.length > cap) {
    throw new StepError('budget_spent', member, `member ${member} sent ${items.length} parts, over ${LIMIT_VARIABLE.maxSplitBranches} (${cap})`, false);
  }
  let changed = false;
  const out = items.map((item) => {
    const payload = stripPrototypeKeys(item.payload);
    if (payload === item.payload) return item;
    changed = true;
    return { ...item, payload };
  });
  return changed ? out : items;
}

/**
 * Counts `children` against their runs' TRELLIS_MAX_RUN_MESSAGES in one statement (runs.message_count,
 * which starts at 1 for the head) and fails every run that would pass it with `budget_spent`, in the
 * caller's transaction, through `failRun` (process/run-end.ts, passed in so this layer never imports
 * the run-end hooks). Returns the children of the runs still within the cap.
 */
export async function countRunMessages<C extends { run_id: string }>(tx: Queryable, children: C[], failRun: RunEndActions['failRun']): Promise<C[]> {
  if (children.length === 0) return children;
  const perRun = new Map<string, number>();
  for (const c of children) perRun.set(c.run_id, (perRun.get(c.run_id) ?? 0) + 1);
  const ids = [...perRun.keys()].sort();
  const counts = ids.map((id) => String(perRun.get(id)));
  const cap = limits().maxRunMessages;
  const counted = await rows(
    tx,
    sql`update runs r set message_count = r.message_count + x.n
          from unnest(${textArray(ids)}, ${textArray(counts)}::int[]) as x(id, n)
         where r.id = x.id
     returning r.id, r.message_count`,
    CountedRow,
  );
  const over = counted.filter((r) => r.message_count > cap);
  if (over.length === 0) return children;
  for (const r of over) {
    await failRun(tx, r.id, { cause: 'budget_spent', detail: `the run reached ${r.message_count} messages, over ${LIMIT_VARIABLE.maxRunMessages} (${cap})` });
  }
  const stopped = new Set(over.map((r) => r.id));
  return children.filter((c) => !stopped.has(c.run_id));
}
