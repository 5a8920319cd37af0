/**
 * Picking up delivered messages.
 *
 * Light members (workflow built-ins, combines) run in microseconds, so the transaction that
 * completes them also claims them: one `update … returning` marks them done, counts the delivery
 * and hands back their rows; a light step that throws is set back to `running` in the same
 * transaction. A separate `running` state would never be seen and would double the writes on the
 * hot path. Heavy members (agents, workflows with code, SQL, HTTP, agent or email steps) are marked
 * `running` with `attempts + 1` and a lease (process/lease.ts) before they execute, so the trail shows
 * a delivery in progress and a second delivery of the same message waits for the first.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { parseFrames } from '../plan/frames';
import { IdRow, rows, type Queryable, textArray } from '../kernel/sql';
import { ClaimedRow, type Claimed } from './types';
import { msgStatus, msgStatuses, runStatuses } from '../kernel/statuses';

const ClaimedHeavyRow = ClaimedRow.extend({ leaseToken: z.string() });
const LiveLeaseRow = z.object({ id: z.string(), until_ms: z.number() });

/** What a job tells a worker: which message, of which run, for which member. */
export interface Delivery {
  messageId: string;
  runId: string;
  /** The job name; a hint only, the message row decides. */
  member: string;
}

type Row = z.output<typeof ClaimedRow>;

const RETURNING = sql`m.id, m.run_id as "runId", m.member, m.pool, m.seq, m.depth, m.frames, m.void, m.payload,
  m.attempts, r.mesh_id as "meshId", r.mesh_version as "meshVersion"`;

function toClaimed(r: Row): Claimed {
  return { ...r, frames: parseFrames(r.frames) };
}

/**
 * Marks open messages of running runs `done` and returns them: for light members, inside the
 * transaction that then writes their outputs. Rows already finished, or whose run has ended, are
 * not returned. The row locks taken here make a parallel duplicate delivery wait, then skip.
 */
export async function completeLight(tx: Queryable, ids: readonly string[]): Promise<Claimed[]> {
  if (ids.length === 0) return [];
  const got = await rows(
    tx,
    sql`update messages m
           set status = ${msgStatus('done')}, attempts = m.attempts + (m.status = ${msgStatus('pending')})::int,
               started_at = coalesce(m.started_at, now()), finished_at = now(), error = null
          from runs r
         where m.id = any(${textArray(ids)}) and m.status in ${msgStatuses('pending', 'running')}
           and r.id = m.run_id and r.status in ${runStatuses('running', 'stalled')}
     returning ${RETURNING}`,
    ClaimedRow,
  );
  return got.map(toClaimed);
}

/** Undoes {@link completeLight} for messages whose step threw: they stay delivered, not done. */
export async function reopenFailed(tx: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`update messages set status = ${msgStatus('running')}, finished_at = null where id = any(${textArray(ids)})`);
}

/** A heavy message this delivery claimed, with the fencing token of its lease. */
export interface ClaimedHeavy extends Claimed {
  leaseToken: string;
}

/** What {@link claimHeavy} found. */
export interface HeavyClaims {
  claimed: ClaimedHeavy[];
  /** Messages another delivery holds a live lease on: wait until then (epoch ms), then look again. */
  leased: Map<string, number>;
}

/**
 * Marks heavy messages `running`, counts the delivery and takes a lease on each (owner, a fresh
 * fencing token, expiry `now() + leaseMs`). A message already `running` is taken only when its
 * lease has lapsed (its worker died or froze past it); one whose lease is live is left to its
 * holder and reported in `leased` with the lease's end, so this delivery waits instead of running
 * the step a second time.
 */
export async function claimHeavy(db: Queryable, ids: readonly string[], owner: string, leaseMs: number): Promise<HeavyClaims> {
  if (ids.length === 0) return { claimed: [], leased: new Map() };
  const got = await rows(
    db,
    sql`update messages m set status = ${msgStatus('running')}, attempts = m.attempts + 1, started_at = now(),
               lease_owner = ${owner}, lease_token = gen_random_uuid()::text,
               lease_until = now() + make_interval(secs => ${leaseMs / 1000})
          from runs r
         where m.id = any(${textArray(ids)})
           and (m.status = ${msgStatus('pending')} or (m.status = ${msgStatus('running')} and (m.lease_until is null or m.lease_until < now())))
           and r.id = m.run_id and r.status in ${runStatuses('running', 'stalled')}
     returning ${RETURNING}, m.lease_token as "leaseToken"`,
    ClaimedHeavyRow,
  );
  const claimed = got.map((r) => ({ ...toClaimed(r), leaseToken: r.leaseToken }));
  const taken = new Set(claimed.map((c) => c.id));
  const rest = ids.filter((id) => !taken.has(id));
  const leased = new Map<string, number>();
  if (rest.length > 0) {
    const live = await rows(
      db,
      sql`select id, (extract(epoch from lease_until) * 1000)::float8 as until_ms from messages
           where id = any(${textArray(rest)}) and status = ${msgStatus('running')} and lease_until >= now()`,
      LiveLeaseRow,
    );
    for (const r of live) leased.set(r.id, Number(r.until_ms));
  }
  return { claimed, leased };
}

/**
 * Marks heavy messages done after they ran, fenced by their lease tokens: a message whose token
 * changed (another delivery took it over after the lease lapsed) is not touched. A parked message
 * that continues (process/continue.ts) holds no lease and passes `null`.
 * @returns the ids this call ended.
 */
export async function completeHeavy(tx: Queryable, leases: readonly { id: string; token: string | null }[]): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const got = await rows(
    tx,
    sql`update messages m set status = ${msgStatus('done')}, finished_at = now(), error = null, lease_until = null
          from json_to_recordset(${JSON.stringify(leases)}::json) as x(id text, token text)
         where m.id = x.id and m.status = ${msgStatus('running')} and m.lease_token is not distinct from x.token
     returning m.id`,
    IdRow,
  );
  return new Set(got.map((r) => r.id));
}

/**
 * Undoes {@link claimHeavy} for a step a draining worker stopped (process/lease.ts `DrainedError`):
 * the message is `pending` again with its lease released and its delivery uncounted, so the next
 * delivery claims it at once. Fenced by the lease token: a lease another delivery took over is left alone.
 * @returns true when the message was handed back.
 */
export async function handBackHeavy(db: Queryable, id: string, token: string): Promise<boolean> {
  const got = await rows(
    db,
    sql`update messages set status = ${msgStatus('pending')}, attempts = greatest(attempts - 1, 0),
               lease_owner = null, lease_token = null, lease_until = null
         where id = ${id} and status = ${msgStatus('running')} and lease_token = ${token}
     returning id`,
    IdRow,
  );
  return got.length > 0;
}

/** Cancels open messages among `ids` whose run has ended, so the relay stops caring for them. */
export async function cancelEnded(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(
    sql`update messages m set status = ${msgStatus('cancelled')}, finished_at = now()
          from runs r
         where m.id = any(${textArray(ids)}) and m.status in ${msgStatuses('pending', 'running')}
           and r.id = m.run_id and r.status not in ${runStatuses('running', 'stalled')}`,
  );
}
