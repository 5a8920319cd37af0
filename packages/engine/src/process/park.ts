/**
 * Parking: a message that reaches an outside service or a nested mesh is recorded `parked` and
 * its delivery is acknowledged at once, so no worker waits. A service member gets a job row that
 * the service claims over REST; a nested-mesh member gets a child run. Both continue later through
 * `continue.ts`; a job nobody claims, or a child that fails, fails the run (see `sweep.ts` and
 * `../nested/resume.ts`).
 */
import { sql } from 'drizzle-orm';
import { serviceJobs } from '@trellis/db/schema/services';
import type { Member, NestedMeshMember } from '@trellis/mesh/schema';
import { enqueue, type Outgoing } from '../kernel/queues';
import { StepError } from '../kernel/errors';
import type { Plan } from '../plan/plan';
import type { Delivery } from './claim';
import type { Claimed, Outcome } from './types';
import type { Engine } from '../kernel/engine';
import { rows, textArray } from '../kernel/sql';
import { insertChildRun, NESTING_LIMIT, nestingDepth, resolveChildMesh, type ChildMesh } from '../members/mesh/child';
import { registerEngine } from '../members/service/registry-engine';
import { announceJobs } from '../members/service/wake';

/** Seconds a service job may wait to be claimed when the member sets no `claimTimeoutSeconds`. */
export const DEFAULT_CLAIM_TIMEOUT_SECONDS = 300;

/** True for members whose messages park instead of holding a worker. */
export function isParking(member: Member): boolean {
  return member.kind === 'service' || member.kind === 'mesh';
}

type Check = { ok: true; child?: ChildMesh } | { ok: false; error: StepError };

/**
 * Parks the deliveries of parking members. Failures (the depth guard, a nested mesh that is missing,
 * invalid or nested too deep) leave the message `running` with an error outcome, so the worker
 * dead-letters it or retries it like any step.
 * @returns the ids it did not park (voids, which pass through, and rows finished before), for the
 *   ordinary heavy path.
 */
export async function parkDeliveries(
  engine: Engine,
  deliveries: readonly Delivery[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
): Promise<string[]> {
  registerEngine(engine);
  if (deliveries.length === 0) return [];
  // Everything that reads the database happens before the transaction (the embedded database
  // allows no query beside an open transaction).
  // A fan-out sends many messages of one run to one nested member: resolve each pair once.
  const checks = new Map<string, Check>();
  const byPair = new Map<string, Check>();
  for (const d of deliveries) {
    const member = plans.get(d.runId)?.members.get(d.member);
    if (member?.kind !== 'mesh') continue;
    const pair = `${d.runId}\u0000${member.id}`;
    let check = byPair.get(pair);
    if (!check) byPair.set(pair, (check = await checkNested(engine, d.runId, member)));
    checks.set(d.messageId, check);
  }
  const parked = await engine.db.transaction(async (tx) => {
    const got = await rows<Omit<Claimed, 'frames'> & { frames: unknown; created_by: string | null }>(
      tx,
      sql`update messages m set status = 'parked', attempts = m.attempts + 1, started_at = now()
            from runs r
           where m.id = any(${textArray(deliveries.map((d) => d.messageId))}) and m.status in ('pending', 'running')
             and not m.void and r.id = m.run_id and r.status in ('running', 'stalled')
       returning m.id, m.run_id as "runId", m.member, m.pool, m.seq, m.depth, m.frames, m.void, m.payload,
                 m.attempts, r.mesh_id as "meshId", r.mesh_version as "meshVersion", r.created_by`,
    );
    const refused: string[] = [];
    const jobs: (typeof serviceJobs.$inferInsert)[] = [];
    const heads: Outgoing[] = [];
    for (const msg of got) {
      const plan = plans.get(msg.runId);
      const member = plan?.members.get(msg.member);
      let check: Check = checks.get(msg.id) ?? { ok: true };
      if (!plan || !member || !isParking(member)) {
        check = { ok: false, error: new StepError('step_code_failed', msg.member, `member ${msg.member} is not a service or nested mesh in this version`, false) };
      } else if ((plan.routes.get(member.id) ?? []).length > 0 && msg.depth + 1 > engine.config.maxDepth) {
        check = { ok: false, error: depthError(member.id, engine.config.maxDepth) };
      }
      if (!check.ok) {
        refused.push(msg.id);
        outcomes.set(msg.id, { kind: 'failed', error: check.error });
        continue;
      }
      if (member?.kind === 'service') {
        const timeout = member.claimTimeoutSeconds ?? DEFAULT_CLAIM_TIMEOUT_SECONDS;
        jobs.push({ id: msg.id, runId: msg.runId, member: member.id, service: member.service, claimDeadline: new Date(Date.now() + timeout * 1000) });
      } else if (member?.kind === 'mesh' && check.child) {
        const head = await insertChildRun(tx, {
          parentRunId: msg.runId,
          parentMessageId: msg.id,
          createdBy: msg.created_by,
          payload: msg.payload,
          child: check.child,
        });
        if (head) heads.push({ pool: head.pool, runId: head.runId, messageId: head.messageId, member: head.member });
      }
    }
    // Refused rows go back to `running`, where the worker's dead-letter or retry path finds them.
    if (refused.length > 0) await tx.execute(sql`update messages set status = 'running' where id = any(${textArray(refused)})`);
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
    return { ids: new Set(got.map((m) => m.id)), services: jobs.map((j) => j.service), heads };
  });
  // After commit: the child heads' jobs (the relay re-adds them if this fails) and the wake-ups.
  try {
    await enqueue(engine, parked.heads);
  } catch (err) {
    engine.log.warn('child run heads left for the relay', { error: err instanceof Error ? err.message : String(err) });
  }
  await announceJobs(engine, parked.services);
  return deliveries.map((d) => d.messageId).filter((id) => !parked.ids.has(id));
}

function depthError(member: string, maxDepth: number): StepError {
  return new StepError('budget_spent', member, `a message went deeper than ${maxDepth} hops, which points to a loop in the mesh`, false);
}

/** Resolves a nested member's mesh and checks the nesting depth of the run it would nest under. */
async function checkNested(engine: Engine, runId: string, member: NestedMeshMember): Promise<Check> {
  try {
    const depth = await nestingDepth(engine.db, runId);
    if (depth + 1 > NESTING_LIMIT) {
      return {
        ok: false,
        error: new StepError(
          'budget_spent',
          member.id,
          `nested meshes went deeper than ${NESTING_LIMIT} levels at mesh ${member.mesh}, which points to a nesting cycle`,
          false,
        ),
      };
    }
    return { ok: true, child: await resolveChildMesh(engine, member) };
  } catch (err) {
    if (err instanceof StepError) return { ok: false, error: err };
    throw err;
  }
}
