/**
 * Priority lanes. Every pool has two BullMQ queues: `pool-<pool>` (normal work, first in first out)
 * and `pool-<pool>.urgent` (the urgent lane; `.` cannot occur in a pool id, so no pool's normal
 * queue can be named like another's urgent one, and BullMQ forbids only `:` in queue names).
 * A run is urgent when `runs.urgent` is set (at start from `meshes.urgent`, or later by
 * runs/mark-urgent.ts); Postgres is the truth and Redis keeps a mirror (the set
 * {@link urgentRunsKey}) so that an enqueue picks the lane in the same round trip budget as the add.
 * The relay repairs the mirror every pass ({@link syncUrgentRuns}).
 *
 * Why two queues and not BullMQ job priorities: a prioritized job is added and taken in
 * O(log n) (a sorted set), against O(1) for the plain wait list, on every message of every run;
 * priorities also have no floor, so a stream of urgent work would starve normal work entirely.
 * With two queues the worker decides the split ({@link reservedSlots}): urgent work gets every
 * slot but the reserved share, normal work keeps that share whatever the urgent backlog.
 */
import type { Redis } from 'ioredis';
import { sql } from 'drizzle-orm';
import { IdRow, rows, textArray, type Queryable } from './sql';
import { runStatuses } from './statuses';

/** The lane of a pool a message travels on. */
export type Lane = 'normal' | 'urgent';

/** Suffix of a pool's urgent queue name. */
export const URGENT_SUFFIX = '.urgent';

/** The Redis set of urgent run ids still open (a mirror of `runs.urgent`). */
export function urgentRunsKey(prefix: string): string {
  return `${prefix}:urgent-runs`;
}

/** What the lane lookups need of an engine. */
export interface PriorityHost {
  readonly db: Queryable;
  readonly redis: Pick<Redis, 'smismember' | 'sadd' | 'srem' | 'smembers'>;
  readonly config: { readonly prefix: string };
  readonly localBus?: unknown;
}

/**
 * Which of `runIds` are urgent, from the Redis mirror (one SMISMEMBER).
 * @throws the Redis error when Redis is unreachable (as the add it precedes would).
 */
export async function urgentAmong(host: { readonly redis: Pick<Redis, 'smismember'>; readonly config: { readonly prefix: string } }, runIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(runIds)];
  if (ids.length === 0) return new Set();
  const flags = await host.redis.smismember(urgentRunsKey(host.config.prefix), ...ids);
  return new Set(ids.filter((_, i) => flags[i] === 1));
}

/**
 * Slots of a worker of `concurrency` slots kept for normal work while urgent work is in hand:
 * `ceil(share × concurrency)`, at least 1 and at most `concurrency − 1` when there are two slots or
 * more (so both lanes always move); all of one slot when there is only one.
 * @throws Error when `share` is outside 0..1 or `concurrency` below 1.
 */
export function reservedSlots(concurrency: number, share: number): number {
  if (!(share >= 0 && share <= 1)) throw new Error(`reservedShare is ${share}; it is a share of worker slots from 0 to 1`);
  if (!(concurrency >= 1)) throw new Error(`concurrency is ${concurrency}; a worker needs at least one slot`);
  if (concurrency === 1) return 1;
  return Math.min(Math.max(Math.ceil(share * concurrency), 1), concurrency - 1);
}

/**
 * Adds those of `runIds` whose row says urgent to the Redis mirror (a start, a re-open, a mark).
 * No-op on the in-process bus, whose claim reads `runs.urgent` itself.
 * @returns the ids that are urgent.
 */
export async function publishUrgent(host: PriorityHost, runIds: readonly string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const found = await rows(host.db, sql`select id from runs where id = any(${textArray([...runIds])}) and urgent`, IdRow);
  const ids = found.map((r) => r.id);
  if (ids.length > 0 && !host.localBus) await host.redis.sadd(urgentRunsKey(host.config.prefix), ...ids);
  return ids;
}

/**
 * Repairs the Redis mirror from Postgres: adds the open urgent runs it lacks (a Redis restart, a
 * mark whose SADD failed) and drops the runs that have ended. Never drops an open urgent run, so
 * it cannot undo a mark made while it ran. The relay calls it every pass.
 * @returns how many ids were added and dropped.
 */
export async function syncUrgentRuns(host: PriorityHost): Promise<{ added: number; dropped: number }> {
  if (host.localBus) return { added: 0, dropped: 0 };
  const key = urgentRunsKey(host.config.prefix);
  const open = await rows(host.db, sql`select id from runs where urgent and status in ${runStatuses('queued', 'running', 'stalled')}`, IdRow);
  const mirrored = new Set(await host.redis.smembers(key));
  const openIds = new Set(open.map((r) => r.id));
  const add = [...openIds].filter((id) => !mirrored.has(id));
  const gone = [...mirrored].filter((id) => !openIds.has(id));
  // A mirrored id that is not open now may be a run whose mark commits this instant: only drop ids
  // whose run row exists and is ended or not urgent (a row not yet visible is kept).
  const drop =
    gone.length === 0
      ? []
      : (await rows(host.db, sql`select id from runs where id = any(${textArray(gone)}) and (not urgent or status not in ${runStatuses('queued', 'running', 'stalled')})`, IdRow)).map(
          (r) => r.id,
        );
  if (add.length > 0) await host.redis.sadd(key, ...add);
  if (drop.length > 0) await host.redis.srem(key, ...drop);
  return { added: add.length, dropped: drop.length };
}
