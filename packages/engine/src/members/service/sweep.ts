/**
 * The service kind's part of the orchestrator's pass over parked work (process/sweep-parked.ts):
 * service jobs nobody claimed in time fail their run with `no_worker`; jobs whose service failed
 * them but whose message is still parked (the process stopped in between) are dead-lettered; jobs
 * whose run ended are closed.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { StepError } from '../../kernel/errors';
import { rows } from '../../kernel/sql';
import type { SweepContext } from '../types';
import { jobStatus, jobStatuses, msgStatus } from '../../kernel/statuses';

/** The service kind's sweep: one pass; at most 100 jobs of each kind. */
export async function sweepServiceJobs(ctx: SweepContext): Promise<void> {
  const { engine, deadLetter } = ctx;
  // A job is unclaimed when it was never claimed by its deadline, or its lease lapsed and nobody
  // claimed it again for as long as the claim timeout.
  const expired = await rows(
    engine.db,
    sql`update service_jobs j set status = ${jobStatus('expired')}, finished_at = now()
          from messages m
         where j.id in (select id from service_jobs
                         where (status = ${jobStatus('waiting')} and claim_deadline < now())
                            or (status = ${jobStatus('claimed')} and lease_until + (claim_deadline - created_at) < now())
                         order by created_at limit 100)
           and m.id = j.id and m.status = ${msgStatus('parked')}
     returning j.id, j.member, j.service, j.claims,
               round(extract(epoch from (j.claim_deadline - j.created_at)))::int as seconds`,
    z.object({ id: z.string(), member: z.string(), service: z.string(), seconds: z.number(), claims: z.number() }),
  );
  for (const job of expired) {
    const detail =
      job.claims === 0
        ? `no worker of outside service ${job.service} claimed the job within ${job.seconds} s`
        : `the worker of outside service ${job.service} that claimed the job stopped answering, and no other claimed it within ${job.seconds} s`;
    await deadLetter(engine, job.id, new StepError('no_worker', job.member, detail, false), 'no_worker');
  }
  const failed = await rows(
    engine.db,
    sql`select j.id, j.member, j.service, j.error from service_jobs j join messages m on m.id = j.id
         where j.status = ${jobStatus('failed')} and m.status = ${msgStatus('parked')} limit 100`,
    z.object({ id: z.string(), member: z.string(), service: z.string(), error: z.string().nullable() }),
  );
  for (const job of failed) await deadLetter(engine, job.id, serviceFailure(job.service, job.member, job.error ?? 'no reason given'));
  // Jobs of runs that ended some other way are closed, so the service never sees them.
  await engine.db.execute(
    sql`update service_jobs j set status = ${jobStatus('expired')}, finished_at = now()
          from messages m
         where j.status in ${jobStatuses('waiting', 'claimed')} and m.id = j.id and m.status <> ${msgStatus('parked')}`,
  );
}

/** The error that fails a run when its outside service gives up on a job. */
export function serviceFailure(service: string, member: string, reason: string): StepError {
  return new StepError('step_code_failed', member, `outside service ${service} failed the job: ${reason}`, false);
}
