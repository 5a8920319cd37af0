/**
 * The outbox relay and reconciler. Message rows are the outbox: a pending (or running) row whose
 * job Redis no longer has is re-added with the same id; one whose job BullMQ gave up on is
 * dead-lettered; one re-added too often and still missing is declared lost, failing its run.
 * Existence is checked for the whole page in one Redis pipeline. A pending row under a live lease
 * is a worker's inline message (process/inline-lane.ts) and is skipped; once that lease lapses
 * (its worker died) the row has no job and is re-added like any other. A job may be in either lane
 * of its pool (kernel/priority.ts): both are looked at, and a re-added job goes to the lane its run
 * is on now. Each pass also repairs the Redis mirror of the urgent runs.
 */
import { MESSAGE_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { enqueue, jobKey, queueName } from '../kernel/queues';
import { countMessages } from '../kernel/metrics';
import { syncUrgentRuns } from '../kernel/priority';
import { deadLetter } from '../process/dead-letter';
import { UNDER_INLINE_LEASE } from '../process/inline-lane';
import { failRun } from '../process/run-end';
import { rows, textArray } from '../kernel/sql';
import type { Engine } from '../kernel/engine';
import { msgStatus, msgStatuses, runStatuses } from '../kernel/statuses';
import { fenced, type Fence } from '../kernel/fence';

/** Where the last page ended; the walk wraps around when it reaches the newest row. */
export interface RelayCursor {
  createdAt: string;
  id: string;
}

const Candidate = z.object({
  id: z.string(),
  run_id: z.string(),
  member: z.string(),
  pool: z.string(),
  status: z.enum(MESSAGE_STATUSES),
  requeues: z.number(),
  created_at: z.string(),
  error: z.string().nullable(),
});
type Candidate = z.output<typeof Candidate>;

/** What one pass did. */
export interface RelayReport {
  /** Open messages looked at (those of ended runs are cancelled first and not counted). */
  checked: number;
  requeued: number;
  lost: number;
  dead: number;
  next: RelayCursor | undefined;
}

const PAGE = 2000;
const LANES = ['normal', 'urgent'] as const;

/**
 * Checks one page of open messages older than `relayAfterMs` and repairs what is missing. With
 * `fence` (the orchestrator leader's pass) its dead-lettering and lost marking check the leader's
 * lease in their transactions (kernel/fence.ts).
 * @throws FenceLostError when `fence` lost its lease.
 */
export async function relayOnce(engine: Engine, cursor: RelayCursor | undefined, fence?: Fence): Promise<RelayReport> {
  const after = cursor ?? { createdAt: '-infinity', id: '' };
  const ageSeconds = engine.config.relayAfterMs / 1000;
  // A run that has ended (failed, or done by the sweep) has no work left: its open messages are set
  // aside as cancelled, so they are neither re-added nor declared lost and its counts stop moving.
  await engine.db.execute(
    sql`update messages m set status = ${msgStatus('cancelled')}, finished_at = now()
          from runs r
         where r.id = m.run_id and m.status in ${msgStatuses('pending', 'running')} and r.status in ${runStatuses('done', 'failed', 'cancelled')}`,
  );
  const page = await rows(
    engine.db,
    sql`select id, run_id, member, pool, status, requeues, created_at::text as created_at, error
          from messages
         where status in ${msgStatuses('pending', 'running')}
           and created_at < now() - make_interval(secs => ${ageSeconds})
           and not ${UNDER_INLINE_LEASE}
           and (created_at, id) > (${after.createdAt}::timestamptz, ${after.id})
         order by created_at, id
         limit ${PAGE}`,
    Candidate,
  );
  const report: RelayReport = { checked: page.length, requeued: 0, lost: 0, dead: 0, next: undefined };
  const lastRow = page[page.length - 1];
  if (page.length === PAGE && lastRow) report.next = { createdAt: lastRow.created_at, id: lastRow.id };
  // On the in-process bus the row is the job: none can be missing, and stalls are counted at claim.
  if (engine.localBus) return report;
  // Before the lookups below, so that a job re-added now goes to the lane its run is on.
  await syncUrgentRuns(engine);
  if (page.length === 0) return report;

  const { prefix } = engine.config;
  const pipe = engine.redis.pipeline();
  for (const m of page) {
    for (const lane of LANES) {
      pipe.exists(jobKey(prefix, m.pool, m.id, lane));
      pipe.zscore(`${prefix}:${queueName(m.pool, lane)}:failed`, m.id);
      // BullMQ's stalled counter: how many times a worker holding the job stopped (died or froze).
      pipe.hget(jobKey(prefix, m.pool, m.id, lane), 'stc');
    }
  }
  const answers = (await pipe.exec()) ?? [];
  const missing: Candidate[] = [];
  const per = 3 * LANES.length;
  for (const [i, m] of page.entries()) {
    let unknown = false;
    let found = false;
    let failedStalls: number | undefined;
    for (const [j] of LANES.entries()) {
      const at = per * i + 3 * j;
      const [existsErr, exists] = answers[at] ?? [];
      const [, failedScore] = answers[at + 1] ?? [];
      const [, stalls] = answers[at + 2] ?? [];
      if (existsErr) unknown = true;
      if (exists === 1) found = true;
      if (exists === 1 && failedScore !== null && failedScore !== undefined) failedStalls = Number(stalls ?? 0);
    }
    if (unknown) continue;
    if (failedStalls !== undefined) {
      if (await deadLetter(engine, m.id, new Error(stalledOut(failedStalls)), undefined, undefined, fence)) report.dead++;
    } else if (!found) {
      missing.push(m);
    }
  }
  await repairMissing(engine, missing, report, fence);
  return report;
}

/**
 * The dead-letter reason of a message whose job BullMQ failed because the workers holding it kept
 * stopping (`maxStalledCount` lapses, runtime/worker.ts). The run's cause is `step_code_failed`: a
 * message that takes down every worker handling it is most likely the step itself (running out of
 * memory, crashing the process), which is the mesh owner's to fix, not a capacity problem.
 */
export function stalledOut(times: number): string {
  const n = times > 0 ? times : 2;
  return `the worker handling it died ${n} time${n === 1 ? '' : 's'} (its job was given up after ${n} lost locks)`;
}

async function repairMissing(engine: Engine, missing: Candidate[], report: RelayReport, fence: Fence | undefined): Promise<void> {
  const lost = missing.filter((m) => m.requeues >= engine.config.maxRequeues);
  const retry = missing.filter((m) => m.requeues < engine.config.maxRequeues);
  if (retry.length > 0) {
    const again = await rows(
      engine.db,
      sql`update messages set requeues = requeues + 1, status = ${msgStatus('pending')}
           where id = any(${textArray(retry.map((m) => m.id))})
             and status in ${msgStatuses('pending', 'running')}
       returning id`,
      z.object({ id: z.string() }),
    );
    const ids = new Set(again.map((r) => r.id));
    const items = retry.filter((m) => ids.has(m.id));
    await enqueue(engine, items.map((m) => ({ pool: m.pool, runId: m.run_id, messageId: m.id, member: m.member })));
    report.requeued += items.length;
    if (items.length > 0) engine.log.warn('re-added missing jobs', { count: items.length });
  }
  for (const m of lost) {
    const ended = await engine.db.transaction(async (tx) => {
      await fenced(tx, fence);
      // The loss is said first; the step's own last error, if it had one, is kept after it.
      const marked = await rows(
        tx,
        sql`update messages set status = ${msgStatus('lost')}, finished_at = now(),
                   error = concat_ws('; its last error: ', ${`its job kept disappearing from the queue (re-added ${m.requeues} times)`}::text, error)
             where id = ${m.id} and status in ${msgStatuses('pending', 'running')} returning id`,
        z.object({ id: z.string() }),
      );
      if (marked.length === 0) return false;
      await failRun(tx, m.run_id, {
        cause: 'message_lost',
        member: m.member,
        detail: `a message vanished from the queue ${m.requeues} times and was given up${m.error ? ` (its last error: ${m.error})` : ''}`,
      });
      return true;
    });
    if (ended) {
      report.lost++;
      countMessages('lost', 1);
    }
  }
}
