/**
 * Continuing a parked message (an outside service answered, or a child run ended done): the
 * message becomes `done` and its output is published through the same commit as every member —
 * conditions on channels, channel ownership, joins over split frames, leaf outputs — in the
 * transaction that also records why it continued. The new children are enqueued after commit
 * (the rows are the outbox; the relay re-adds any job lost in between).
 */
import { sql } from 'drizzle-orm';
import { parseFrames } from '../plan/frames';
import { plansForRuns, type Plan } from '../plan/plan';
import { commit, type CommitResult } from './commit';
import type { RunEndActions } from '../members/types';
import { ClaimedRow, type Claimed } from './types';
import type { Engine } from '../kernel/engine';
import { rows, type Queryable } from '../kernel/sql';
import { kindOf } from '../members/index';
import { msgStatus, runStatuses } from '../kernel/statuses';

/** A parked message's run plan, read before the transaction (the embedded database allows one query at a time). */
export async function planOfMessage(engine: Engine, runId: string): Promise<Plan | undefined> {
  return (await plansForRuns(engine, [runId])).get(runId);
}

/**
 * Inside `tx`: turns the parked message `messageId` into done and publishes `payload` as its one
 * output. A message that is no longer parked (its run ended, or it continued already) publishes
 * nothing and gives `undefined`.
 */
export async function continueParked(
  tx: Queryable,
  engine: Engine,
  plan: Plan,
  messageId: string,
  payload: unknown,
  failRun: RunEndActions['failRun'],
): Promise<CommitResult | undefined> {
  const [row] = await rows(
    tx,
    sql`update messages m set status = ${msgStatus('running')}, lease_token = null, lease_until = null
          from runs r
         where m.id = ${messageId} and m.status = ${msgStatus('parked')}
           and r.id = m.run_id and r.status in ${runStatuses('running', 'stalled')}
     returning m.id, m.run_id as "runId", m.member, m.pool, m.seq, m.depth, m.frames, m.void, m.payload,
               m.attempts, r.mesh_id as "meshId", r.mesh_version as "meshVersion"`,
    ClaimedRow,
  );
  if (!row) return undefined;
  const msg: Claimed = { ...row, frames: parseFrames(row.frames) };
  const member = plan.members.get(msg.member);
  if (!member) throw new Error(`member ${msg.member} is not in mesh ${plan.mesh.name}`);
  // The member's kind may shape the answer (a nested mesh with `output: 'merge'` spreads it over the payload).
  const kind = kindOf(member);
  const out = kind.resume ? kind.resume(member, msg.payload, payload) : payload;
  const prepared = { msg, plan, member, items: [{ payload: out, frames: msg.frames, void: false }], leaseToken: null };
  return commit(tx, [], [prepared], new Map([[msg.runId, plan]]), engine.config.maxDepth, failRun);
}
