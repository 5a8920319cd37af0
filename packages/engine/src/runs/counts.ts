/** Run accounting, computed from the message rows with one grouped query (never stored twice). */
import { inArray, sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { messages } from '@trellis/db/schema/messages';

/**
 * Message counts of a run. `published` counts every message sent (every row but the `filtered`
 * trail rows); the rest split it by status. `filtered` counts parts that routing dropped: never
 * sent, so not in `published`, each counted as skipped at the combines that waited for it.
 */
export interface RunCounts {
  published: number;
  /** Messages a worker picked up at least once. */
  delivered: number;
  done: number;
  deadLettered: number;
  lost: number;
  pending: number;
  running: number;
  parked: number;
  cancelled: number;
  filtered: number;
}

/** The same, per member. */
export type MemberCounts = Omit<RunCounts, 'delivered' | 'cancelled'>;

/** Zeroed counts. */
export function emptyCounts(): RunCounts {
  return { published: 0, delivered: 0, done: 0, deadLettered: 0, lost: 0, pending: 0, running: 0, parked: 0, cancelled: 0, filtered: 0 };
}

const FIELD: Record<string, keyof RunCounts> = {
  done: 'done',
  dead: 'deadLettered',
  lost: 'lost',
  pending: 'pending',
  running: 'running',
  parked: 'parked',
  cancelled: 'cancelled',
  filtered: 'filtered',
};

interface Row {
  runId: string;
  member: string;
  status: string;
  n: number;
  delivered: number;
}

async function grouped(db: Db, runIds: string[]): Promise<Row[]> {
  return db
    .select({
      runId: messages.runId,
      member: messages.member,
      status: messages.status,
      n: sql<number>`count(*)::int`,
      delivered: sql<number>`(count(*) filter (where ${messages.attempts} > 0))::int`,
    })
    .from(messages)
    .where(inArray(messages.runId, runIds))
    .groupBy(messages.runId, messages.member, messages.status);
}

function add(c: RunCounts, r: Row): void {
  if (r.status !== 'filtered') c.published += r.n;
  c.delivered += r.delivered;
  const f = FIELD[r.status];
  if (f) c[f] += r.n;
}

/** Counts for several runs at once (one query), keyed by run id. */
export async function countRuns(db: Db, runIds: string[]): Promise<Map<string, RunCounts>> {
  const out = new Map<string, RunCounts>(runIds.map((id) => [id, emptyCounts()]));
  if (runIds.length === 0) return out;
  for (const r of await grouped(db, runIds)) {
    const c = out.get(r.runId);
    if (c) add(c, r);
  }
  return out;
}

/** Counts of one run, in total and per member. */
export async function countRun(db: Db, runId: string): Promise<{ counts: RunCounts; memberCounts: Record<string, MemberCounts> }> {
  const counts = emptyCounts();
  const perMember: Record<string, RunCounts> = {};
  for (const r of await grouped(db, [runId])) {
    add(counts, r);
    add((perMember[r.member] ??= emptyCounts()), r);
  }
  const memberCounts: Record<string, MemberCounts> = {};
  for (const [m, { delivered: _d, cancelled: _c, ...rest }] of Object.entries(perMember)) memberCounts[m] = rest;
  return { counts, memberCounts };
}
