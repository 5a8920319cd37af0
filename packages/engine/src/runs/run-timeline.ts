/**
 * Use case: a run's timeline, aggregated in SQL so a run of 200,000 messages still answers with a
 * few hundred numbers: one row per member (first message, first start, last finish, counts,
 * retries, parked time, where it failed) and counts per member per time bucket (the waves), plus the
 * run's re-opens. Times are seconds from the run's creation; buckets are chosen so the span from
 * creation to the end (or now) fits in at most `MAX_BUCKETS`.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@trellis/db/client';
import { laneOf } from '../members/index';
import { rows, timestamp } from '../kernel/sql';
import { msgStatus, msgStatuses } from '../kernel/statuses';
import { loadVersion } from '../plan/definition';

/** At most this many time buckets on the chart and per waterfall row. */
export const MAX_BUCKETS = 60;

/** Bucket widths in seconds, smallest first: the first one that fits the span in MAX_BUCKETS is used. */
const BUCKET_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400];

/** One member's row of the waterfall; times in seconds from the run's creation, null when not reached. */
export interface TimelineMember {
  member: string;
  /** When its first message was created (published to it). */
  firstAt: number;
  /** When its first message started (a worker took it, or it was parked). */
  startedAt: number | null;
  /** When its last message finished; null while any is still open. */
  endedAt: number | null;
  /** Its latest finish so far (for drawing a bar still growing). */
  lastAt: number | null;
  messages: number;
  done: number;
  dead: number;
  lost: number;
  /** Still pending, running or parked. */
  open: number;
  /** Deliveries beyond the first, summed over its messages (a redelivery counts too). */
  retries: number;
  /** Messages that needed more than one delivery. */
  retried: number;
  /** True for members that park their messages (outside services, nested meshes): their spans are waits. */
  parks: boolean;
  /** Seconds its messages spent parked, summed (for parking members; open ones counted up to now). */
  parkedSeconds: number;
  /** When its first message was dead-lettered or lost, else null. */
  failedAt: number | null;
  /** The first dead-letter error, as stored. */
  error: string | null;
}

/** The whole timeline of a run. */
export interface RunTimeline {
  runId: string;
  status: string;
  /** The run's creation time: the zero of every other time here. */
  createdAt: Date;
  /** Seconds from creation to the first start, and to the end (null while it runs). */
  startedAt: number | null;
  endedAt: number | null;
  /** Seconds from creation to the moment this answer was made. */
  now: number;
  /** The member the run's cause names, when it failed or stalled there. */
  causeMember: string | null;
  bucketSeconds: number;
  /** Members in the order their first message was created. */
  members: TimelineMember[];
  /** Messages finished per bucket: `done` and `failed` (dead or lost), over every member; only non-empty buckets. */
  throughput: { bucket: number; done: number; failed: number }[];
  /** Messages finished per member per bucket (the waves); only non-empty cells. */
  waves: { member: string; bucket: number; done: number; failed: number }[];
  /** Re-opens: attempt number (2, 3, …) and seconds from creation. */
  reopens: { attempt: number; at: number }[];
}

const RunRow = z.object({
  status: z.string(),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  ended_at: timestamp.nullable(),
  mesh_id: z.string(),
  mesh_version: z.number(),
  cause_member: z.string().nullable(),
  now: timestamp,
});

const num = z.union([z.number(), z.string()]).transform(Number);
const optNum = z.union([z.number(), z.string()]).nullable().transform((v) => (v === null ? null : Number(v)));

const MemberRow = z.object({
  member: z.string(),
  first_at: num,
  started_at: optNum,
  last_at: optNum,
  messages: num,
  done: num,
  dead: num,
  lost: num,
  open: num,
  retries: num,
  retried: num,
  busy_seconds: num,
  failed_at: optNum,
  error: z.string().nullable(),
});

const CellRow = z.object({ member: z.string(), bucket: num, done: num, failed: num });

/** Picks the bucket width for a span of `seconds`. */
export function bucketFor(seconds: number): number {
  return BUCKET_STEPS.find((b) => seconds / b <= MAX_BUCKETS) ?? Math.ceil(seconds / MAX_BUCKETS);
}

/** Returns the run's timeline, or null when there is no such run. Filtered rows (parts routing dropped) are left out. */
export async function runTimeline(db: Db, runId: string): Promise<RunTimeline | null> {
  const [run] = await rows(
    db,
    sql`select status, created_at, started_at, ended_at, mesh_id, mesh_version, cause_member, now() as now from runs where id = ${runId}`,
    RunRow,
  );
  if (!run) return null;
  const t0 = new Date(run.created_at);
  const now = new Date(run.now);
  const end = run.ended_at ? new Date(run.ended_at) : now;
  const span = Math.max(0, (end.getTime() - t0.getTime()) / 1000);
  const bucketSeconds = bucketFor(span);
  const since = (col: string) => sql.raw(`extract(epoch from (${col} - r0.t0))`);
  const members = await rows(
    db,
    sql`with r0 as (select ${t0.toISOString()}::timestamptz as t0, now() as now)
        select m.member,
               min(${since('m.created_at')}) as first_at,
               min(${since('m.started_at')}) as started_at,
               max(${since('m.finished_at')}) as last_at,
               count(*)::int as messages,
               count(*) filter (where m.status = ${msgStatus('done')})::int as done,
               count(*) filter (where m.status = ${msgStatus('dead')})::int as dead,
               count(*) filter (where m.status = ${msgStatus('lost')})::int as lost,
               count(*) filter (where m.status in ${msgStatuses('pending', 'running', 'parked')})::int as open,
               coalesce(sum(greatest(m.attempts - 1, 0)), 0)::int as retries,
               count(*) filter (where m.attempts > 1)::int as retried,
               coalesce(sum(extract(epoch from (coalesce(m.finished_at, r0.now) - m.started_at))) filter (where m.started_at is not null), 0) as busy_seconds,
               min(${since('m.finished_at')}) filter (where m.status in ${msgStatuses('dead', 'lost')}) as failed_at,
               (array_agg(m.error order by m.finished_at) filter (where m.status = ${msgStatus('dead')}))[1] as error
          from messages m cross join r0
         where m.run_id = ${runId} and m.status <> ${msgStatus('filtered')}
         group by m.member
         order by min(m.created_at), m.member`,
    MemberRow,
  );
  const cells = await rows(
    db,
    sql`with r0 as (select ${t0.toISOString()}::timestamptz as t0)
        select m.member, floor(${since('m.finished_at')} / ${bucketSeconds})::int as bucket,
               count(*) filter (where m.status = ${msgStatus('done')})::int as done,
               count(*) filter (where m.status in ${msgStatuses('dead', 'lost')})::int as failed
          from messages m cross join r0
         where m.run_id = ${runId} and m.finished_at is not null and m.status in ${msgStatuses('done', 'dead', 'lost')}
         group by 1, 2 order by 2, 1`,
    CellRow,
  );
  const reopens = await rows(
    db,
    sql`select attempt, extract(epoch from (created_at - ${t0.toISOString()}::timestamptz)) as at from run_attempts where run_id = ${runId} order by attempt`,
    z.object({ attempt: z.number(), at: num }),
  );
  const definition = await loadVersion(db, run.mesh_id, run.mesh_version);
  const parking = new Set(definition?.members.filter((m) => laneOf(m) === 'park').map((m) => m.id) ?? []);
  const throughput = new Map<number, { bucket: number; done: number; failed: number }>();
  for (const c of cells) {
    const t = throughput.get(c.bucket) ?? { bucket: c.bucket, done: 0, failed: 0 };
    t.done += c.done;
    t.failed += c.failed;
    throughput.set(c.bucket, t);
  }
  const seconds = (d: Date | string | null) => (d === null ? null : (new Date(d).getTime() - t0.getTime()) / 1000);
  return {
    runId,
    status: run.status,
    createdAt: t0,
    startedAt: seconds(run.started_at),
    endedAt: seconds(run.ended_at),
    now: (now.getTime() - t0.getTime()) / 1000,
    causeMember: run.cause_member,
    bucketSeconds,
    members: members.map((m) => ({
      member: m.member,
      firstAt: m.first_at,
      startedAt: m.started_at,
      endedAt: m.open > 0 ? null : m.last_at,
      lastAt: m.last_at,
      messages: m.messages,
      done: m.done,
      dead: m.dead,
      lost: m.lost,
      open: m.open,
      retries: m.retries,
      retried: m.retried,
      parks: parking.has(m.member),
      parkedSeconds: parking.has(m.member) ? m.busy_seconds : 0,
      failedAt: m.failed_at,
      error: m.error,
    })),
    throughput: [...throughput.values()].sort((a, b) => a.bucket - b.bucket),
    waves: cells.map((c) => ({ member: c.member, bucket: c.bucket, done: c.done, failed: c.failed })),
    reopens: reopens.map((r) => ({ attempt: r.attempt, at: r.at })),
  };
}
