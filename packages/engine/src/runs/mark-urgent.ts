/**
 * Use case: a person marks runs urgent (the run page, the Runs tab's bulk action, REST, the
 * assistant). From then on every message of the run goes on the urgent lane of its pool
 * (kernel/priority.ts): the run's flag is set in Postgres, the Redis mirror learns it (so new
 * messages are added there), and the run's jobs still waiting in a normal lane are moved to the
 * urgent lane under the same job ids. Marking is idempotent: a run already urgent is marked again
 * without effect, and a job already in the urgent lane is not touched.
 *
 * Moving a job is BullMQ's `remove` (refused, returning 0, while a worker holds the job's lock)
 * followed by an add to the urgent lane with the same id. Only waiting jobs move: a job in hand
 * finishes where it is, a delayed job (a retry's backoff, a wait for a lease) keeps its delay and
 * attempt count in its lane, and a failed job stays for the relay to dead-letter. If the process
 * dies between the remove and the add, the row is pending with no job and the relay re-adds it
 * (to the urgent lane, since the mirror was written first): nothing is lost and, one job id per
 * lane and one lane looked up per add, nothing runs twice.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { RUN_STATUSES } from '@trellis/db/schema/statuses';
import { appendAuditBy } from '../audit/append';
import { recordEvents } from '../events/outbox';
import { BadInputError, RunNotFoundError, EngineError } from '../kernel/errors';
import type { Engine } from '../kernel/engine';
import { jobOptions, queueName } from '../kernel/queues';
import { urgentRunsKey } from '../kernel/priority';
import { rows, textArray } from '../kernel/sql';
import { msgStatus, runStatuses } from '../kernel/statuses';

/** Most runs one bulk mark takes (the Runs tab's page size times a few). */
export const MARK_URGENT_MAX = 500;

/** The run has ended, so there is no work left to hurry (HTTP 409). */
export class RunNotOpenError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(runId: string, status: string) {
    super('run_ended', `run ${runId} has already ended (${status}); only a queued, running or stalled run can be marked urgent`);
  }
}

/** Which runs, and who marks them. */
export interface MarkUrgentInput {
  runIds: readonly string[];
  /** The signed-in person (users.id), when a person marks. */
  userId?: string | undefined;
}

/** What {@link markUrgentRuns} did. */
export interface MarkUrgentResult {
  /** Runs that are urgent now (those already urgent included). */
  marked: string[];
  /** Runs not marked, each with the reason in plain words. */
  refused: { runId: string; reason: string }[];
  /** Waiting jobs moved from a normal lane to the urgent lane. */
  moved: number;
}

const RunRow = z.object({ id: z.string(), status: z.enum(RUN_STATUSES), mesh_id: z.string(), urgent: z.boolean() });
const Pending = z.object({ id: z.string(), run_id: z.string(), member: z.string(), pool: z.string() });

/**
 * Marks queued, running or stalled runs urgent and moves their waiting jobs to the urgent lanes.
 * Ended and unknown runs are refused, each with its reason; the others are marked.
 * @throws BadInputError when `runIds` is empty or longer than {@link MARK_URGENT_MAX}.
 */
export async function markUrgentRuns(engine: Engine, input: MarkUrgentInput): Promise<MarkUrgentResult> {
  const ids = [...new Set(input.runIds)];
  if (ids.length === 0) throw new BadInputError('runIds is empty: name at least one run to mark urgent');
  if (ids.length > MARK_URGENT_MAX) throw new BadInputError(`runIds names ${ids.length} runs; mark at most ${MARK_URGENT_MAX} at once`);
  const refused: MarkUrgentResult['refused'] = [];
  const marked = await engine.db.transaction(async (tx) => {
    const found = await rows(tx, sql`select id, status, mesh_id, urgent from runs where id = any(${textArray(ids)}) for update`, RunRow);
    const byId = new Map(found.map((r) => [r.id, r]));
    const open: z.output<typeof RunRow>[] = [];
    for (const id of ids) {
      const run = byId.get(id);
      if (!run) refused.push({ runId: id, reason: 'no such run' });
      else if (!['queued', 'running', 'stalled'].includes(run.status)) refused.push({ runId: id, reason: `it has already ended (${run.status})` });
      else open.push(run);
    }
    const fresh = open.filter((r) => !r.urgent);
    if (fresh.length > 0) {
      await tx.execute(sql`update runs set urgent = true where id = any(${textArray(fresh.map((r) => r.id))}) and status in ${runStatuses('queued', 'running', 'stalled')}`);
      // Pages showing the runs (run page, Runs tab) refetch when these reach them.
      await recordEvents(tx, fresh.map((r) => ({ kind: 'run.status' as const, runId: r.id, meshId: r.mesh_id, status: r.status })));
      for (const r of fresh) await appendAuditBy(tx, input.userId, { action: 'run.urgent', target: r.id, detail: { status: r.status } });
    }
    return open.map((r) => r.id);
  });
  const moved = marked.length > 0 && !engine.localBus ? await moveToUrgentLanes(engine, marked) : 0;
  // The in-process bus reads runs.urgent at every claim: nothing to move there.
  if (marked.length > 0 && engine.localBus) engine.localBus.wakeAll();
  return { marked, refused, moved };
}

/**
 * Marks one run urgent; the single-run form the run page and `POST /runs/{id}/urgent` use.
 * @throws RunNotFoundError; RunNotOpenError when the run has ended.
 */
export async function markUrgent(engine: Engine, input: { runId: string; userId?: string | undefined }): Promise<MarkUrgentResult> {
  const result = await markUrgentRuns(engine, { runIds: [input.runId], userId: input.userId });
  const refusal = result.refused[0];
  if (refusal) {
    if (refusal.reason === 'no such run') throw new RunNotFoundError(input.runId);
    const [run] = await rows(engine.db, sql`select status from runs where id = ${input.runId}`, z.object({ status: z.string() }));
    throw new RunNotOpenError(input.runId, run?.status ?? 'ended');
  }
  return result;
}

/** Moves chunk by chunk: one pipeline of state checks, then removes and one add per pool. */
const MOVE_CHUNK = 500;

/**
 * Writes the runs into the Redis mirror, then moves their waiting normal-lane jobs to the urgent
 * lane (see the file comment for what moves and what stays).
 * @returns how many jobs moved.
 */
async function moveToUrgentLanes(engine: Engine, runIds: readonly string[]): Promise<number> {
  const { prefix } = engine.config;
  // First: from now on every add of these runs' messages goes to the urgent lane.
  await engine.redis.sadd(urgentRunsKey(prefix), ...runIds);
  const pending = await rows(
    engine.db,
    sql`select id, run_id, member, pool from messages where run_id = any(${textArray([...runIds])}) and status = ${msgStatus('pending')} order by created_at, id`,
    Pending,
  );
  let moved = 0;
  for (let i = 0; i < pending.length; i += MOVE_CHUNK) {
    const chunk = pending.slice(i, i + MOVE_CHUNK);
    const pipe = engine.redis.pipeline();
    for (const m of chunk) {
      const q = `${prefix}:${queueName(m.pool)}`;
      pipe.exists(`${q}:${m.id}`);
      pipe.zscore(`${q}:delayed`, m.id);
      pipe.zscore(`${q}:failed`, m.id);
    }
    const answers = (await pipe.exec()) ?? [];
    const candidates = chunk.filter((_, k) => {
      const [[e1, exists], [, delayed], [, failed]] = [answers[3 * k] ?? [], answers[3 * k + 1] ?? [], answers[3 * k + 2] ?? []];
      return !e1 && exists === 1 && delayed === null && failed === null;
    });
    // remove() is one Lua call that refuses a locked (in-hand) job; 1 = removed.
    const removed = await Promise.all(candidates.map((m) => engine.queue(m.pool).remove(m.id)));
    const taken = candidates.filter((_, k) => removed[k] === 1);
    const byPool = new Map<string, typeof taken>();
    for (const m of taken) byPool.set(m.pool, [...(byPool.get(m.pool) ?? []), m]);
    for (const [pool, list] of byPool) {
      await engine.queue(pool, 'urgent').addBulk(
        list.map((m) => ({ name: m.member, data: { v: 1, runId: m.run_id, messageId: m.id }, opts: jobOptions(engine, m.id) })),
      );
    }
    moved += taken.length;
  }
  if (moved > 0) engine.log.info('moved waiting jobs to the urgent lane', { runs: runIds.length, jobs: moved });
  return moved;
}
