/**
 * The service kind: a message parks as a job row that an outside service claims over REST
 * (services/claim-job.ts) and answers (services/complete-job.ts, services/fail-job.ts).
 */
import { sql } from 'drizzle-orm';
import { serviceJobs } from '@trellis/db/schema/services';
import { passVoidOnly } from '../parked';
import type { KindHandler } from '../types';
import { sweepServiceJobs } from './sweep';
import { announceJobs } from './wake';

/** Seconds a service job may wait to be claimed when the member sets no `claimTimeoutSeconds`. */
export const DEFAULT_CLAIM_TIMEOUT_SECONDS = 300;

/** Lane `park`: one job row per parked message; the services listening are woken after commit. */
export const serviceKind: KindHandler<'service'> = {
  lane: () => 'park',
  execute: passVoidOnly,
  sweep: sweepServiceJobs,
  park: {
    async park(tx, engine, parked) {
      const jobs = parked.map(({ msg, member }) => {
        const timeout = member.claimTimeoutSeconds ?? DEFAULT_CLAIM_TIMEOUT_SECONDS;
        return { id: msg.id, runId: msg.runId, member: member.id, service: member.service, claimDeadline: new Date(Date.now() + timeout * 1000) };
      });
      if (jobs.length > 0) {
        // A message parks again only after a re-open of its run: its old job starts over.
        await tx
          .insert(serviceJobs)
          .values(jobs)
          .onConflictDoUpdate({
            target: serviceJobs.id,
            set: {
              status: 'waiting',
              createdAt: sql`now()`,
              claimDeadline: sql`excluded.claim_deadline`,
              claimedBy: null,
              claimedAt: null,
              leaseUntil: null,
              claims: 0,
              output: null,
              error: null,
              finishedAt: null,
            },
          });
      }
      return () => announceJobs(engine, jobs.map((j) => j.service));
    },
  },
};
