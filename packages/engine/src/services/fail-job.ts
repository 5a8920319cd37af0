/**
 * Use case: an outside service gives up on a job. A retryable failure puts the job back for another
 * claim (while claims stay under the engine's `attempts`); any other fails the run with
 * `step_code_failed` and a sentence naming the service and its reason.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { deadLetter } from '../process/dead-letter';
import type { Engine } from '../kernel/engine';
import { rows } from '../kernel/sql';
import { ServiceJobConflictError } from './errors';
import { readJob } from './complete-job';
import { authenticateService } from './registry';
import { serviceFailure } from '../members/service/sweep';
import { announceJobs } from '../members/service/wake';
import { jobStatus, jobStatuses } from '../kernel/statuses';

/** What failing a job did: `waiting` (back for another claim) or `failed` (the run failed). */
export interface FailJobResult {
  jobId: string;
  status: 'waiting' | 'failed';
  duplicate: boolean;
}

/**
 * @throws ServiceUnauthorizedError, ServiceJobNotFoundError, ServiceJobConflictError (the job is
 *   done or expired already).
 */
export async function failJob(
  engine: Engine,
  input: { service: string; apiKey: string | null | undefined; jobId: string; reason: string; retryable?: boolean },
): Promise<FailJobResult> {
  await authenticateService(engine.db, input.service, input.apiKey);
  const job = await readJob(engine, input.service, input.jobId);
  if (job.status === 'failed') return { jobId: job.id, status: 'failed', duplicate: true };
  if (job.status !== 'waiting' && job.status !== 'claimed') throw new ServiceJobConflictError(job.id, job.status, 'failed');
  const reason = input.reason.trim().slice(0, 2000) || 'no reason given';
  if (input.retryable && job.claims < engine.config.attempts) {
    // Back to waiting, with a fresh claim deadline of the same length as the first.
    const [back] = await rows(
      engine.db,
      sql`update service_jobs set status = ${jobStatus('waiting')}, claimed_by = null, lease_until = null, error = ${reason},
                 claim_deadline = now() + (claim_deadline - created_at)
           where id = ${job.id} and status in ${jobStatuses('waiting', 'claimed')} returning id`,
      z.object({ id: z.string() }),
    );
    if (back) {
      await announceJobs(engine, [input.service]);
      return { jobId: job.id, status: 'waiting', duplicate: false };
    }
  } else {
    const [won] = await rows(
      engine.db,
      sql`update service_jobs set status = ${jobStatus('failed')}, error = ${reason}, finished_at = now()
           where id = ${job.id} and status in ${jobStatuses('waiting', 'claimed')} returning id`,
      z.object({ id: z.string() }),
    );
    // The sweep dead-letters a failed job whose message is still parked, should this stop here.
    if (won) {
      await deadLetter(engine, job.id, serviceFailure(input.service, job.member, reason));
      return { jobId: job.id, status: 'failed', duplicate: false };
    }
  }
  const now = await readJob(engine, input.service, input.jobId);
  if (now.status === 'failed') return { jobId: job.id, status: 'failed', duplicate: true };
  throw new ServiceJobConflictError(job.id, now.status, 'failed');
}
