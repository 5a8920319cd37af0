/**
 * Use case: the exceptions feed. One group per (mesh, cause) of the runs that failed or stalled in
 * a window: count, first and last seen, severity, three sample runs and a trend (runs per hour for
 * windows up to two days, per day beyond), all computed by ONE SQL query (group by, array_agg,
 * generate_series for the empty buckets). A failed run is placed at its end, a stalled one at its
 * last movement.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { causeInfo, causeSentence, isCause, type Cause, type CauseSeverity } from '@trellis/mesh/causes';
import type { Db } from '@trellis/db/client';
import { rows, timestamp } from '../kernel/sql';
import { runStatuses } from '../kernel/statuses';

/** The window, `from` inclusive, `to` exclusive. */
export interface FeedInput {
  from: Date;
  to: Date;
  meshId?: string | undefined;
}

/** A sample run of a group. */
export interface FeedSample {
  id: string;
  at: Date;
  sentence: string | null;
  inputName: string | null;
}

/** One (mesh, cause) group. */
export interface FeedGroup {
  meshId: string;
  meshName: string;
  cause: Cause;
  severity: CauseSeverity;
  whoActs: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  /** The sentence for the whole group, naming the member most of its runs failed at. */
  sentence: string;
  samples: FeedSample[];
  /** Runs per bucket, oldest first; `bucket` says hour or day. */
  trend: number[];
}

/** The feed: groups most urgent first (severity, then count), and the buckets of the trend. */
export interface Feed {
  bucket: 'hour' | 'day';
  /** Start of each trend bucket. */
  buckets: Date[];
  groups: FeedGroup[];
}

const SEVERITY_ORDER: Record<CauseSeverity, number> = { critical: 0, project: 1, capacity: 2 };

/**
 * Groups the failed and stalled runs of the window.
 * @throws Error when `to` is not after `from` or the window is longer than 366 days.
 */
export async function exceptionsFeed(db: Db, input: FeedInput): Promise<Feed> {
  const span = input.to.getTime() - input.from.getTime();
  if (!(span > 0)) throw new Error('to: expected a time after from');
  if (span > 366 * 86_400_000) throw new Error('from/to: expected a window of at most 366 days');
  const bucket = span <= 48 * 3_600_000 ? 'hour' : 'day';
  const got = await rows(
    db,
    sql`with hit as (
          select r.id, r.mesh_id, r.mesh_name, r.cause, r.cause_member, r.cause_message, r.input_name,
                 coalesce(r.ended_at, r.moved_at) as at
            from runs r
           where r.cause is not null and r.status in ${runStatuses('failed', 'stalled')}
             and coalesce(r.ended_at, r.moved_at) >= ${input.from.toISOString()}::timestamptz
             and coalesce(r.ended_at, r.moved_at) < ${input.to.toISOString()}::timestamptz
             and (${input.meshId ?? null}::text is null or r.mesh_id = ${input.meshId ?? null})
        ),
        b as (
          select generate_series(date_trunc(${bucket}, ${input.from.toISOString()}::timestamptz),
                                 ${input.to.toISOString()}::timestamptz - interval '1 microsecond',
                                 ${`1 ${bucket}`}::interval) as start
        ),
        g as (
          select mesh_id, max(mesh_name) as mesh_name, cause, count(*)::int as n, min(at) as first_seen, max(at) as last_seen,
                 mode() within group (order by cause_member) as member,
                 to_json((array_agg(json_build_object('id', id, 'at', at, 'sentence', cause_message, 'input_name', input_name) order by at desc))[1:3]) as samples
            from hit group by mesh_id, cause
        ),
        per as (
          select mesh_id, cause, date_trunc(${bucket}, at) as start, count(*)::int as n from hit group by 1, 2, 3
        ),
        t as (
          select g.mesh_id, g.cause, json_agg(coalesce(per.n, 0) order by b.start) as trend
            from g cross join b
            left join per on per.mesh_id = g.mesh_id and per.cause = g.cause and per.start = b.start
           group by g.mesh_id, g.cause
        )
        select g.mesh_id, g.mesh_name, g.cause, g.n, g.first_seen, g.last_seen, g.samples, t.trend,
               coalesce((select mm ->> 'label' from mesh_versions v, jsonb_array_elements(v.definition -> 'members') mm
                          where v.mesh_id = g.mesh_id and mm ->> 'id' = g.member order by v.version desc limit 1), g.member) as member,
               (select to_json(array_agg(b.start order by b.start)) from b) as buckets
          from g join t on t.mesh_id = g.mesh_id and t.cause = g.cause`,
    z.object({
      mesh_id: z.string(),
      mesh_name: z.string(),
      cause: z.string(),
      n: z.number(),
      first_seen: timestamp,
      last_seen: timestamp,
      member: z.string().nullable(),
      samples: z.array(z.object({ id: z.string(), at: z.string(), sentence: z.string().nullable(), input_name: z.string().nullable() })).nullable(),
      trend: z.array(z.number()),
      buckets: z.array(timestamp),
    }),
  );
  const groups: FeedGroup[] = [];
  let buckets: Date[] = [];
  for (const r of got) {
    if (!isCause(r.cause)) continue;
    buckets = r.buckets.map((d) => new Date(d));
    const info = causeInfo(r.cause);
    const samples = (r.samples ?? []).map((s) => ({ id: s.id, at: new Date(s.at), sentence: s.sentence, inputName: s.input_name }));
    groups.push({
      meshId: r.mesh_id,
      meshName: r.mesh_name,
      cause: r.cause,
      severity: info.severity,
      whoActs: info.whoActs,
      count: r.n,
      firstSeen: new Date(r.first_seen),
      lastSeen: new Date(r.last_seen),
      sentence: causeSentence({ cause: r.cause, ...(r.member ? { member: r.member } : {}), runs: r.n }),
      samples,
      trend: r.trend.map(Number),
    });
  }
  if (buckets.length === 0) buckets = bucketStarts(input.from, input.to, bucket);
  groups.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || b.count - a.count || a.meshName.localeCompare(b.meshName));
  return { bucket, buckets, groups };
}

/** Bucket starts when no group came back (the query returns them only with a group). */
function bucketStarts(from: Date, to: Date, bucket: 'hour' | 'day'): Date[] {
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const first = new Date(from);
  if (bucket === 'hour') first.setUTCMinutes(0, 0, 0);
  else first.setUTCHours(0, 0, 0, 0);
  const out: Date[] = [];
  for (let t = first.getTime(); t < to.getTime(); t += step) out.push(new Date(t));
  return out;
}
