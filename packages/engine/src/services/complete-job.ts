/**
 * Use case: an outside service completes a claimed job with its answer. The job turns `done` and
 * the parked message continues with `output` as its payload, in one transaction. Idempotent by job
 * id: completing a job that is done already changes nothing and says so.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { rows } from '../kernel/sql';
import { continueParked, planOfMessage } from '../process/continue';
import { failRun, publishCommitted } from '../process/run-end';
import { ServiceJobConflictError, ServiceJobNotFoundError } from './errors';
import { authenticateService } from './registry';
import { jobStatus, jobStatuses } from '../kernel/statuses';

/** What completing a job did. */
export interface CompleteJobResult {
  jobId: string;
  /** `done`; `duplicate` is true when an earlier call completed it. */
  status: 'done';
  duplicate: boolean;
}

/**
 * @throws ServiceUnauthorizedError (missing or wrong key), ServiceJobNotFoundError (no such job for
 *   this service), ServiceJobConflictError (the job failed or expired before the answer came).
 */
export async function completeJob(
  engine: Engine,
  input: { service: string; apiKey: string | null | undefined; jobId: string; output: unknown },
): Promise<CompleteJobResult> {
  await authenticateService(engine.db, input.service, input.apiKey);
  const job = await readJob(engine, input.service, input.jobId);
  if (job.status === 'done') return { jobId: input.jobId, status: 'done', duplicate: true };
  if (job.status !== 'waiting' && job.status !== 'claimed') throw new ServiceJobConflictError(input.jobId, job.status, 'completed');
  const plan = await planOfMessage(engine, job.run_id);
  const outcome = await engine.db.transaction(async (tx) => {
    const [won] = await rows(
      tx,
      sql`update service_jobs set status = ${jobStatus('done')}, output = ${JSON.stringify(input.output ?? null)}::jsonb, finished_at = now()
           where id = ${input.jobId} and service = ${input.service} and status in ${jobStatuses('waiting', 'claimed')}
       returning id`,
      z.object({ id: z.string() }),
    );
    if (!won) return { won: false as const };
    return { won: true as const, result: plan ? await continueParked(tx, engine, plan, input.jobId, input.output ?? null, failRun) : undefined };
  });
  if (!outcome.won) {
    // Another call got there first: done is a duplicate; anything else is a conflict.
    const now = await readJob(engine, input.service, input.jobId);
    if (now.status === 'done') return { jobId: input.jobId, status: 'done', duplicate: true };
    throw new ServiceJobConflictError(input.jobId, now.status, 'completed');
  }
  await publishCommitted(engine, outcome.result);
  return { jobId: input.jobId, status: 'done', duplicate: false };
}

/** The job's row. @throws ServiceJobNotFoundError */
export async function readJob(
  engine: Engine,
  service: string,
  jobId: string,
): Promise<{ id: string; run_id: string; member: string; status: string; claims: number }> {
  const [job] = await rows(
    engine.db,
    sql`select id, run_id, member, status, claims from service_jobs where id = ${jobId} and service = ${service}`,
    z.object({ id: z.string(), run_id: z.string(), member: z.string(), status: z.string(), claims: z.number() }),
  );
  if (!job) throw new ServiceJobNotFoundError(service, jobId);
  return job;
}
