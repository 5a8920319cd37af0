/**
 * Use case: an outside service claims its next job, long-polling up to `waitSeconds`. The claim
 * holds a lease of `leaseSeconds`; a lapsed lease makes the job claimable again (at-least-once),
 * so a service must treat a job id it sees twice as the same work.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Engine } from '../kernel/engine';
import { rows, timestamp } from '../kernel/sql';
import { authenticateService } from './registry';
import { RECHECK_MS, subscribeJobs } from '../members/service/wake';
import { jobStatus, msgStatus, runStatuses } from '../kernel/statuses';

/** Longest long-poll, in seconds (proxies commonly cut idle requests at 60 s). */
export const MAX_WAIT_SECONDS = 30;
/** Lease bounds and default, in seconds. */
export const MIN_LEASE_SECONDS = 1;
export const MAX_LEASE_SECONDS = 3600;
export const DEFAULT_LEASE_SECONDS = 60;

/** What a claim asks for. */
export interface ClaimJobInput {
  service: string;
  apiKey: string | null | undefined;
  /** Seconds to wait for a job when none is ready (0 to 30; default 0). */
  waitSeconds?: number;
  /** Seconds the claim holds the job (1 to 3600; default 60). */
  leaseSeconds?: number;
  /** Free text naming the claiming worker, kept on the job (e.g. a host name). */
  worker?: string;
  /** Ends the wait early (the HTTP request was closed). */
  signal?: AbortSignal;
}

/** A claimed job. */
export interface ClaimedJob {
  jobId: string;
  runId: string;
  /** The mesh member the job belongs to. */
  member: string;
  payload: unknown;
  /** 1 on the first claim; more when an earlier claim's lease lapsed or the service asked for a retry. */
  attempt: number;
  /** ISO time the lease ends; complete or fail before it. */
  leaseUntil: string;
}

/**
 * Claims the oldest claimable job of the service, waiting for one up to `waitSeconds`.
 * @returns the job, or null when none came in time.
 * @throws ServiceUnauthorizedError for a missing or wrong key.
 */
export async function claimJob(engine: Engine, input: ClaimJobInput): Promise<ClaimedJob | null> {
  await authenticateService(engine.db, input.service, input.apiKey);
  const waitMs = clamp(input.waitSeconds ?? 0, 0, MAX_WAIT_SECONDS) * 1000;
  const lease = clamp(input.leaseSeconds ?? DEFAULT_LEASE_SECONDS, MIN_LEASE_SECONDS, MAX_LEASE_SECONDS);
  const worker = (input.worker ?? '').slice(0, 200) || null;
  const first = await tryClaim(engine, input.service, lease, worker);
  if (first || waitMs === 0) return first;
  const until = Date.now() + waitMs;
  const sub = await subscribeJobs(engine, input.service);
  try {
    for (;;) {
      // Subscribed before this query, so a job added from here on either shows up now or wakes the wait.
      const job = await tryClaim(engine, input.service, lease, worker);
      const left = until - Date.now();
      if (job || left <= 0 || input.signal?.aborted) return job;
      await sub.wait(Math.min(left, RECHECK_MS), input.signal);
    }
  } finally {
    sub.close();
  }
}

async function tryClaim(engine: Engine, service: string, leaseSeconds: number, worker: string | null): Promise<ClaimedJob | null> {
  const [job] = await rows(
    engine.db,
    sql`update service_jobs j
           set status = ${jobStatus('claimed')}, claimed_by = ${worker}, claimed_at = now(), claims = j.claims + 1,
               lease_until = now() + make_interval(secs => ${leaseSeconds})
          from messages m
         where j.id = (select c.id from service_jobs c
                         join messages cm on cm.id = c.id and cm.status = ${msgStatus('parked')}
                         join runs r on r.id = c.run_id and r.status in ${runStatuses('running', 'stalled')}
                        where c.service = ${service}
                          and ((c.status = ${jobStatus('waiting')} and c.claim_deadline > now())
                               or (c.status = ${jobStatus('claimed')} and c.lease_until < now()))
                        order by c.created_at
                        limit 1
                          for update of c skip locked)
           and m.id = j.id
     returning j.id, j.run_id, j.member, j.claims, j.lease_until, m.payload`,
    z.object({ id: z.string(), run_id: z.string(), member: z.string(), claims: z.number(), lease_until: timestamp, payload: z.unknown() }),
  );
  if (!job) return null;
  return {
    jobId: job.id,
    runId: job.run_id,
    member: job.member,
    payload: job.payload,
    attempt: job.claims,
    leaseUntil: new Date(job.lease_until).toISOString(),
  };
}

function clamp(n: number, lo: number, hi: number): number {
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo;
}
