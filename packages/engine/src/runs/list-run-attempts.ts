/** Use case: a run's history of attempts (its first start, then each re-open). */
import { RUN_STATUSES } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { rows, timestamp } from '../kernel/sql';

/** One attempt of a run. */
export interface RunAttempt {
  /** 1 for the first start, then 2, 3, … per re-open. */
  attempt: number;
  /** Who started it (user name or email), null when unknown (the command line). */
  by: string | null;
  at: Date;
  /** `first` for the first start, else the version the person chose. */
  versionChoice: 'first' | 'pinned' | 'latest';
  meshVersion: number;
  /** Members whose messages it re-published (empty for the first start). */
  members: string[];
  /** Messages it re-published (0 for the first start). */
  republished: number;
  /** How it ended: done | failed | stalled, or the run's current state (running) for the last one. */
  outcome: string;
  outcomeCause: string | null;
  outcomeMessage: string | null;
}

const Row = z.object({
  attempt: z.number(),
  by: z.string().nullable(),
  at: timestamp,
  version_choice: z.string(),
  mesh_version: z.number(),
  previous_version: z.number(),
  members: z.array(z.string()),
  republished: z.number(),
  previous_status: z.string(),
  previous_cause: z.string().nullable(),
  previous_cause_message: z.string().nullable(),
});

/**
 * Returns the attempts oldest first, or null when there is no such run. An attempt's outcome is
 * what the next re-open found (its `previous_*` columns), or the run's own state for the last one.
 */
export async function listRunAttempts(db: Db, runId: string): Promise<RunAttempt[] | null> {
  const [run] = await rows(
    db,
    sql`select r.status, r.cause, r.cause_message, r.mesh_version, r.created_at, coalesce(u.name, u.email, r.created_by) as by
          from runs r left join users u on u.id = r.created_by where r.id = ${runId}`,
    z.object({ status: z.enum(RUN_STATUSES), cause: z.string().nullable(), cause_message: z.string().nullable(), mesh_version: z.number(), created_at: timestamp, by: z.string().nullable() }),
  );
  if (!run) return null;
  const reopens = await rows(
    db,
    sql`select a.attempt, coalesce(u.name, u.email, a.created_by) as by, a.created_at as at, a.version_choice,
               a.mesh_version, a.previous_version, a.members, a.republished, a.previous_status, a.previous_cause,
               a.previous_cause_message
          from run_attempts a left join users u on u.id = a.created_by
         where a.run_id = ${runId} order by a.attempt`,
    Row,
  );
  const first = reopens[0];
  const out: RunAttempt[] = [
    {
      attempt: 1,
      by: run.by,
      at: new Date(run.created_at),
      versionChoice: 'first',
      meshVersion: first ? first.previous_version : run.mesh_version,
      members: [],
      republished: 0,
      outcome: run.status,
      outcomeCause: run.cause,
      outcomeMessage: run.cause_message,
    },
  ];
  for (const r of reopens) {
    const prev = out[out.length - 1];
    if (prev) {
      prev.outcome = r.previous_status;
      prev.outcomeCause = r.previous_cause;
      prev.outcomeMessage = r.previous_cause_message;
    }
    out.push({
      attempt: r.attempt,
      by: r.by,
      at: new Date(r.at),
      versionChoice: r.version_choice === 'latest' ? 'latest' : 'pinned',
      meshVersion: r.mesh_version,
      members: r.members,
      republished: r.republished,
      outcome: run.status,
      outcomeCause: run.cause,
      outcomeMessage: run.cause_message,
    });
  }
  return out;
}
