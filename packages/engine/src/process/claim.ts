/**
 * Picking up delivered messages.
 *
 * Light members (workflow built-ins, combines) run in microseconds, so the transaction that
 * completes them also claims them: one `update … returning` marks them done, counts the delivery
 * and hands back their rows; a light step that throws is set back to `running` in the same
 * transaction. A separate `running` state would never be seen and would double the writes on the
 * hot path. Heavy members (agents, nested meshes, services, workflows with code, SQL, HTTP or agent
 * steps) are marked `running` with `attempts + 1` before they execute, so the trail shows a delivery
 * in progress.
 */
import { sql } from 'drizzle-orm';
import type { Member } from '@trellis/mesh/schema';
import { parseFrames } from '../exec/frames';
import { hasHeavySteps } from '../exec/heavy-steps';
import { rows, type Queryable, textArray } from '../sql';
import type { Claimed } from './types';

/** What a job tells a worker: which message, of which run, for which member. */
export interface Delivery {
  messageId: string;
  runId: string;
  /** The job name; a hint only, the message row decides. */
  member: string;
}

/** True for members whose execution may take long enough to be worth a `running` mark. */
export function isHeavy(member: Member): boolean {
  if (member.kind === 'workflow') return hasHeavySteps(member); // code, sql, http or agent steps
  return member.kind === 'agent' || member.kind === 'mesh' || member.kind === 'service';
}

interface Row extends Omit<Claimed, 'frames'> {
  frames: unknown;
}

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
  const got = await rows<Row>(
    tx,
    sql`update messages m
           set status = 'done', attempts = m.attempts + (m.status = 'pending')::int,
               started_at = coalesce(m.started_at, now()), finished_at = now(), error = null
          from runs r
         where m.id = any(${textArray(ids)}) and m.status in ('pending', 'running')
           and r.id = m.run_id and r.status in ('running', 'stalled')
     returning ${RETURNING}`,
  );
  return got.map(toClaimed);
}

/** Undoes {@link completeLight} for messages whose step threw: they stay delivered, not done. */
export async function reopenFailed(tx: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`update messages set status = 'running', finished_at = null where id = any(${textArray(ids)})`);
}

/** Marks heavy messages `running` and counts the delivery; returns the rows this call claimed. */
export async function claimHeavy(db: Queryable, ids: readonly string[]): Promise<Claimed[]> {
  if (ids.length === 0) return [];
  const got = await rows<Row>(
    db,
    sql`update messages m set status = 'running', attempts = m.attempts + 1, started_at = now()
          from runs r
         where m.id = any(${textArray(ids)}) and m.status in ('pending', 'running')
           and r.id = m.run_id and r.status in ('running', 'stalled')
     returning ${RETURNING}`,
  );
  return got.map(toClaimed);
}

/** Marks heavy messages done after they ran; returns the ids still `running` that this call ended. */
export async function completeHeavy(tx: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const got = await rows<{ id: string }>(
    tx,
    sql`update messages set status = 'done', finished_at = now(), error = null
         where id = any(${textArray(ids)}) and status = 'running'
     returning id`,
  );
  return new Set(got.map((r) => r.id));
}

/** Cancels open messages among `ids` whose run has ended, so the relay stops caring for them. */
export async function cancelEnded(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(
    sql`update messages m set status = 'cancelled', finished_at = now()
          from runs r
         where m.id = any(${textArray(ids)}) and m.status in ('pending', 'running')
           and r.id = m.run_id and r.status not in ('running', 'stalled')`,
  );
}
