/**
 * Use case: a person cancels a run. The run ends `cancelled` (an end state, not a failure: no cause
 * from the list), with who cancelled it and why; its open messages are set aside as `cancelled`,
 * pending approvals and waiting service jobs with them, and its running child runs (nested meshes)
 * are cancelled too. Steps already running anywhere are stopped: workers hear the run's end on the
 * live-update channel (runtime/worker.ts) and through their lease renewals (process/lease.ts), and
 * abort the step's signal (HTTP and agent calls, SQL queries, code sandboxes, MCP tool calls).
 */
import { publishSignal } from '../kernel/signals';
import { RUN_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { appendAuditBy } from '../audit/append';
import { EngineError, RunNotFoundError } from '../kernel/errors';
import { eventsChannel, type EngineEvent } from '../events/outbox';
import type { Engine } from '../kernel/engine';
import { cancelChildRuns, endRuns } from '../lifecycle/cancel-runs';
import { runsEnded } from '../process/run-end';
import { rows } from '../kernel/sql';

/** The run has already ended, so there is nothing to cancel (HTTP 409). */
export class RunEndedAlreadyError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(runId: string, status: string) {
    super('run_ended', `run ${runId} has already ended (${status}); there is nothing to cancel`);
  }
}

/** Who cancels which run, and why (optional, shown on the run). */
export interface CancelRunInput {
  runId: string;
  /** The signed-in person (users.id), when a person cancels. */
  userId?: string | undefined;
  reason?: string | undefined;
}

/** What {@link cancelRun} did. */
export interface CancelRunResult {
  runId: string;
  status: 'cancelled';
  /** This run and its child runs that were cancelled. */
  runs: string[];
  /** Open messages set aside as `cancelled`, over all those runs. */
  messages: number;
}

/**
 * Cancels a running, stalled or queued run and its running child runs, in one transaction; then
 * tells the workers at once (a best-effort publish; the event outbox and the lease renewals also carry it).
 * @throws RunNotFoundError; RunEndedAlreadyError when the run has ended.
 */
export async function cancelRun(engine: Engine, input: CancelRunInput): Promise<CancelRunResult> {
  const who = input.userId
    ? ((await rows(engine.db, sql`select name from users where id = ${input.userId}`, z.object({ name: z.string() })))[0]?.name ?? 'someone')
    : 'the system';
  const reason = input.reason?.trim() ?? '';
  const sentence = `Cancelled by ${who}${reason ? `: ${reason}` : ''}.`;
  const result = await engine.db.transaction(async (tx) => {
    const [run] = await rows(tx, sql`select status from runs where id = ${input.runId} for update`, z.object({ status: z.enum(RUN_STATUSES) }));
    if (!run) throw new RunNotFoundError(input.runId);
    if (!['running', 'stalled', 'queued'].includes(run.status)) throw new RunEndedAlreadyError(input.runId, run.status);
    const ended = await endRuns(tx, [input.runId], sentence);
    const children = await cancelChildRuns(tx, [input.runId], `Cancelled with its parent run ${input.runId}.`);
    // The kinds' run-end hooks: a cancelled child run fails the parent waiting for it (members/mesh/resume.ts).
    await runsEnded(tx, [input.runId]);
    await appendAuditBy(tx, input.userId, { action: 'run.cancel', target: input.runId, detail: { reason: reason || null, runs: [...ended.runs, ...children.runs] } });
    return { runs: [...ended.runs, ...children.runs], messages: ended.messages + children.messages };
  });
  await announceRunEnds(engine, result.runs.map((runId) => ({ kind: 'run.status', runId, status: 'cancelled' })));
  return { runId: input.runId, status: 'cancelled', ...result };
}

/**
 * Publishes run ends on the live-update channel right away, so workers stop the runs' steps without
 * waiting for the orchestrator's next event pass. Best effort: the event outbox publishes the same
 * events (at least once), and lease renewals notice the end as well.
 */
export async function announceRunEnds(engine: Engine, events: readonly EngineEvent[]): Promise<void> {
  if (events.length === 0) return;
  try {
    await publishSignal(engine, eventsChannel(engine.config.prefix), JSON.stringify({ events }));
  } catch (err) {
    engine.log.warn('could not announce run ends now; the event outbox carries them', { error: err instanceof Error ? err.message : String(err) });
  }
}
