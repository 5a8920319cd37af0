/**
 * Use case: a run's answer, waiting for it up to a limit — what entry points send back (REST
 * `?wait=`, MCP tool calls, A2A `message/send`, webhook callbacks, event-mesh replies).
 */
import type { Db } from '@trellis/db/client';
import type { RunCounts } from './counts';
import { FINAL_STATUSES, waitForRun } from './wait-run';
import type { RunView } from './get-run';

/** A run's answer: its state, its one cause when it failed, its counts and its output. */
export interface RunAnswer {
  runId: string;
  meshId: string;
  meshName: string;
  meshVersion: number;
  /** queued | running | done | failed | stalled | cancelled */
  status: string;
  /** True when the status is final (done, failed, stalled, cancelled). */
  ended: boolean;
  /** One of the cause list when the run failed or stalled, else null. */
  cause: string | null;
  causeMember: string | null;
  /** One plain sentence naming the member and the detail, else null. */
  causeMessage: string | null;
  counts: RunCounts;
  /** The run's output (its leaf's payload) once done, else null. */
  output: unknown;
  /** Seconds from start to end, or so far. */
  seconds: number;
}

/** The answer fields of a run view. */
export function answerOf(view: RunView): RunAnswer {
  return {
    runId: view.id,
    meshId: view.meshId,
    meshName: view.meshName,
    meshVersion: view.meshVersion,
    status: view.status,
    ended: FINAL_STATUSES.includes(view.status),
    cause: view.cause,
    causeMember: view.causeMember,
    causeMessage: view.causeMessage,
    counts: view.counts,
    output: view.output ?? null,
    seconds: view.seconds,
  };
}

/**
 * The run's answer once it ends, or as it stands when `timeoutMs` (0 = do not wait) runs out:
 * check `ended`. Polls the run's status row (runs/wait-run.ts).
 * @throws RunNotFoundError when there is no such run.
 */
export async function waitForAnswer(db: Db, runId: string, options: { timeoutMs: number; pollMs?: number; signal?: AbortSignal }): Promise<RunAnswer> {
  return answerOf(await waitForRun(db, runId, options));
}
