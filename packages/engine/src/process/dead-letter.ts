/** What happens to a message whose delivery failed: back to pending for a retry, or dead-lettered. */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Cause } from '@trellis/mesh/causes';
import { StepError } from '../kernel/errors';
import { countMessages } from '../kernel/metrics';
import type { Engine } from '../kernel/engine';
import { failRun } from './run-end';
import { plansForRuns } from '../plan/plan';
import { rows } from '../kernel/sql';
import { msgStatus, msgStatuses } from '../kernel/statuses';
import { fenced, type Fence } from '../kernel/fence';

/**
 * Whether another attempt could help. A member's own failure (a throwing step, an agent whose
 * provider errs, any non-StepError) is retried with backoff up to `attempts` deliveries: the engine
 * cannot tell a step that always throws from one that throws once. Only refusals decided by the
 * mesh file alone say `retryable: false` and are dead-lettered at once: the depth limit
 * (`budget_spent`), a channel the member does not own, a member missing from the version, a model
 * that is not configured (`agent_or_model_missing`).
 */
export function isRetryable(err: Error): boolean {
  return err instanceof StepError ? err.retryable : true;
}

/**
 * Records the error and sets the message back to pending while BullMQ waits out the backoff.
 * A light message (never marked running) has its delivery counted here. A heavy message passes the
 * token of the lease its step ran under: a delivery whose lease was taken over releases nothing.
 */
export async function releaseForRetry(engine: Engine, messageId: string, err: Error, leaseToken?: string): Promise<void> {
  await engine.db.execute(
    sql`update messages set status = ${msgStatus('pending')}, error = ${err.message}, attempts = attempts + (status = ${msgStatus('pending')})::int,
               lease_token = null, lease_until = null
         where id = ${messageId} and status in ${msgStatuses('pending', 'running')}
           and (${leaseToken ?? null}::text is null or lease_token = ${leaseToken ?? null})`,
  );
}

/**
 * Sets the message aside as `dead` (never dropped) and fails its run with the error's cause
 * (`step_code_failed` for errors that carry none), in one transaction. With `leaseToken`, only while
 * the message's lease still carries it (fencing: a stale delivery dead-letters nothing). With
 * `fence` (the orchestrator leader's relay) only while that fence holds the leader's lease.
 * @returns false when the message had already finished (nothing changed).
 * @throws FenceLostError when `fence` lost its lease; nothing is dead-lettered then.
 */
export async function deadLetter(engine: Engine, messageId: string, err: Error, cause?: Cause, leaseToken?: string, fence?: Fence): Promise<boolean> {
  // The label is read before the transaction: the embedded database allows no query beside an open one.
  const [where] = await rows(engine.db, sql`select run_id, member from messages where id = ${messageId}`, z.object({ run_id: z.string(), member: z.string() }));
  if (!where) return false;
  const label = (await plansForRuns(engine, [where.run_id])).get(where.run_id)?.members.get(where.member)?.label;
  const dead = await engine.db.transaction(async (tx) => {
    await fenced(tx, fence);
    const [msg] = await rows(
      tx,
      sql`update messages set status = ${msgStatus('dead')}, error = ${err.message}, finished_at = now(),
                 attempts = attempts + (status = ${msgStatus('pending')})::int, lease_until = null
           where id = ${messageId} and status in ${msgStatuses('pending', 'running', 'parked')}
             and (${leaseToken ?? null}::text is null or lease_token = ${leaseToken ?? null})
       returning run_id, member, attempts`,
      z.object({ run_id: z.string(), member: z.string(), attempts: z.number() }),
    );
    if (!msg) return false;
    const runCause: Cause = cause ?? (err instanceof StepError ? err.cause : 'step_code_failed');
    const tries = msg.attempts === 1 ? '1 attempt' : `${msg.attempts} attempts`;
    await failRun(tx, msg.run_id, {
      cause: runCause,
      member: msg.member,
      ...(label ? { memberLabel: label } : {}),
      ...(err instanceof StepError && err.step ? { step: err.step } : {}),
      detail: `${err.message} (after ${tries})`,
    });
    return true;
  });
  if (dead) countMessages('dead', 1);
  return dead;
}

/**
 * What becomes of a delivery whose step failed, the same on both buses (runtime/worker.ts on
 * BullMQ, runtime/local-worker.ts on the in-process bus): on its last attempt, or with an error that
 * no retry can mend ({@link isRetryable}), the message is dead-lettered, and `onRunFailed(runId)`
 * is called when that failed its run (so the worker stops the run's other steps); otherwise its row
 * is released for the next attempt. The caller then tells its bus: no more attempts, or retry.
 * @returns `dead` or `retry`.
 */
export async function settleFailedDelivery(
  engine: Engine,
  delivery: { messageId: string; runId: string; error: Error; leaseToken?: string | undefined; lastAttempt: boolean },
  onRunFailed: (runId: string) => void,
): Promise<'dead' | 'retry'> {
  const { messageId, runId, error, leaseToken, lastAttempt } = delivery;
  if (lastAttempt || !isRetryable(error)) {
    if (await deadLetter(engine, messageId, error, undefined, leaseToken)) onRunFailed(runId);
    return 'dead';
  }
  await releaseForRetry(engine, messageId, error, leaseToken);
  return 'retry';
}
