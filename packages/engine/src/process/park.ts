/**
 * The park lane: a message whose member's lane is `park` (members/index.ts) is recorded `parked`
 * and its delivery is acknowledged at once, so no worker waits. Its kind's park hooks record what
 * it waits for (a service job, a child run) and it continues later through `continue.ts`; a job
 * nobody claims, or a child that fails, fails the run (the kinds' sweeps and run-end hooks).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Member, MemberKind } from '@trellis/mesh/schema';
import { StepError } from '../kernel/errors';
import type { Plan } from '../plan/plan';
import { parseFrames } from '../plan/frames';
import type { Delivery } from './claim';
import { ClaimedRow, type Outcome } from './types';
import type { Engine } from '../kernel/engine';
import { rows, textArray } from '../kernel/sql';
import { kindOf, laneOf } from '../members/index';
import type { ParkCheck, ParkedMessage } from '../members/types';
import { msgStatus, msgStatuses, runStatuses } from '../kernel/statuses';

/**
 * Parks the deliveries of park-lane members. Failures (the depth guard, a kind's check refusing)
 * leave the message `running` with an error outcome, so the worker dead-letters it or retries it
 * like any step.
 * @returns the ids it did not park (voids, which pass through, and rows finished before), for the
 *   ordinary heavy path.
 */
export async function parkDeliveries(
  engine: Engine,
  deliveries: readonly Delivery[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
): Promise<string[]> {
  if (deliveries.length === 0) return [];
  // Everything that reads the database happens before the transaction (the embedded database
  // allows no query beside an open transaction).
  // A fan-out sends many messages of one run to one parking member: check each pair once.
  const checks = new Map<string, ParkCheck>();
  const byPair = new Map<string, ParkCheck>();
  for (const d of deliveries) {
    const member = plans.get(d.runId)?.members.get(d.member);
    const check = member && laneOf(member) === 'park' ? kindOf(member).park?.check : undefined;
    if (!member || !check) continue;
    const pair = `${d.runId}\u0000${member.id}`;
    let found = byPair.get(pair);
    if (!found) byPair.set(pair, (found = await check(engine, d.runId, member)));
    checks.set(d.messageId, found);
  }
  const parked = await engine.db.transaction(async (tx) => {
    const got = await rows(
      tx,
      sql`update messages m set status = ${msgStatus('parked')}, attempts = m.attempts + 1, started_at = now()
            from runs r
           where m.id = any(${textArray(deliveries.map((d) => d.messageId))}) and m.status in ${msgStatuses('pending', 'running')}
             and not m.void and r.id = m.run_id and r.status in ${runStatuses('running', 'stalled')}
       returning m.id, m.run_id as "runId", m.member, m.pool, m.seq, m.depth, m.frames, m.void, m.payload,
                 m.attempts, r.mesh_id as "meshId", r.mesh_version as "meshVersion", r.created_by`,
      ClaimedRow.extend({ created_by: z.string().nullable() }),
    );
    const refused: string[] = [];
    const byKind = new Map<MemberKind, ParkedMessage<MemberKind>[]>();
    for (const msg of got) {
      const plan = plans.get(msg.runId);
      const member: Member | undefined = plan?.members.get(msg.member);
      let check: ParkCheck = checks.get(msg.id) ?? { ok: true };
      if (!plan || !member || laneOf(member) !== 'park') {
        check = { ok: false, error: new StepError('step_code_failed', msg.member, `member ${msg.member} is not a service or nested mesh in this version`, false) };
      } else if ((plan.routes.get(member.id) ?? []).length > 0 && msg.depth + 1 > engine.config.maxDepth) {
        check = { ok: false, error: depthError(member.id, engine.config.maxDepth) };
      }
      if (!check.ok || !member) {
        refused.push(msg.id);
        if (!check.ok) outcomes.set(msg.id, { kind: 'failed', error: check.error });
        continue;
      }
      const frames = parseFrames(msg.frames);
      const list = byKind.get(member.kind) ?? [];
      list.push({ msg: { id: msg.id, runId: msg.runId, payload: msg.payload, frames, void: msg.void, createdBy: msg.created_by }, member, checked: check.data });
      byKind.set(member.kind, list);
    }
    // Refused rows go back to `running`, where the worker's dead-letter or retry path finds them.
    if (refused.length > 0) await tx.execute(sql`update messages set status = ${msgStatus('running')} where id = any(${textArray(refused)})`);
    const after: (() => Promise<void>)[] = [];
    for (const list of byKind.values()) {
      const hooks = list[0] && kindOf(list[0].member).park;
      if (hooks) after.push(await hooks.park(tx, engine, list));
    }
    return { ids: new Set(got.map((m) => m.id)), after };
  });
  // After commit: each kind's follow-up (add child heads' jobs, wake services).
  for (const step of parked.after) await step();
  return deliveries.map((d) => d.messageId).filter((id) => !parked.ids.has(id));
}

function depthError(member: string, maxDepth: number): StepError {
  return new StepError('budget_spent', member, `a message went deeper than ${maxDepth} hops, which points to a loop in the mesh`, false);
}
