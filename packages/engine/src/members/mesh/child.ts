/**
 * Starting a child run for a nested-mesh member. The child runs the nested mesh's latest saved
 * version at the moment the parent's message reaches the member (the child run records that
 * version, so the link shows exactly what ran); it is validated like any run start. A parked
 * message has one child (unique `runs.parent_message_id`); a re-open that parks it again starts a new one.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { meshes } from '@trellis/db/schema/meshes';
import { messages } from '@trellis/db/schema/messages';
import { runs } from '@trellis/db/schema/runs';
import { hasErrors } from '@trellis/mesh/findings';
import { validateMesh } from '@trellis/mesh/validate';
import type { NestedMeshMember } from '@trellis/mesh/schema';
import { StepError } from '../../kernel/errors';
import { loadPlan, poolOf } from '../../plan/plan';
import { headMessageId, uuidv7 } from '../../kernel/ids';
import { loadVersion, nestedResolver } from '../../plan/definition';
import { knownTools } from '../../tools/known-tools';
import type { Engine } from '../../kernel/engine';
import { rows, type Queryable } from '../../kernel/sql';

/** Deepest nesting of child runs below a top-level run (source: DESIGN §1 depth guard, as for messages). */
export const NESTING_LIMIT = 8;

/** A nested mesh resolved for a child run. */
export interface ChildMesh {
  meshId: string;
  meshName: string;
  version: number;
  head: string;
  pool: string;
}

/**
 * Resolves and validates the mesh a nested member names.
 * @throws StepError `agent_or_model_missing` when no mesh has that name, `step_code_failed` when its
 *   latest version has validation errors (both not retryable).
 */
export async function resolveChildMesh(engine: Engine, member: NestedMeshMember): Promise<ChildMesh> {
  const [mesh] = await engine.db.select().from(meshes).where(eq(meshes.name, member.mesh));
  if (!mesh) throw new StepError('agent_or_model_missing', member.id, `nested mesh ${member.mesh} is not saved`, false);
  const definition = await loadVersion(engine.db, mesh.id, mesh.latestVersion);
  if (!definition) throw new StepError('agent_or_model_missing', member.id, `nested mesh ${member.mesh} has no version ${mesh.latestVersion}`, false);
  const findings = validateMesh(definition, await nestedResolver(engine.db, definition), await knownTools(engine.db, definition)).filter((f) => f.severity === 'error');
  if (hasErrors(findings)) {
    throw new StepError(
      'step_code_failed',
      member.id,
      `nested mesh ${member.mesh} version ${mesh.latestVersion} cannot run: ${findings.map((f) => f.message).slice(0, 3).join('; ')}`,
      false,
    );
  }
  const plan = await loadPlan(engine, mesh.id, mesh.latestVersion);
  return { meshId: mesh.id, meshName: mesh.name, version: mesh.latestVersion, head: plan.head.id, pool: poolOf(plan.head) };
}

/** How many parent runs stand above `runId` (0 for a top-level run). */
export async function nestingDepth(db: Queryable, runId: string): Promise<number> {
  const [row] = await rows(
    db,
    sql`with recursive up(id, parent, n) as (
          select id, parent_run_id, 0 from runs where id = ${runId}
          union all
          select r.id, r.parent_run_id, up.n + 1 from runs r join up on r.id = up.parent where up.n < ${NESTING_LIMIT * 4})
        select coalesce(max(n), 0)::int as depth from up`,
    z.object({ depth: z.number() }),
  );
  return row?.depth ?? 0;
}

/** What a child run starts with. */
export interface ChildStart {
  parentRunId: string;
  parentMessageId: string;
  createdBy: string | null;
  payload: unknown;
  child: ChildMesh;
}

/**
 * Inside the parking transaction: writes the child run and its head message. The head's job is
 * added after commit by the caller (or by the outbox relay).
 * @returns the child's run id and head message, or undefined when the parent message already has a child.
 */
export async function insertChildRun(
  tx: Pick<Engine['db'], 'insert' | 'update'>,
  start: ChildStart,
): Promise<{ runId: string; messageId: string; pool: string; member: string } | undefined> {
  // A message parks again only after a re-open of its run: the earlier child (ended) stays a child
  // of the run but no longer answers for the message, so its end cannot move the new park on.
  await tx.update(runs).set({ parentMessageId: null }).where(eq(runs.parentMessageId, start.parentMessageId));
  const runId = uuidv7();
  const payload =
    typeof start.payload === 'object' && start.payload !== null && !Array.isArray(start.payload) ? start.payload : { value: start.payload };
  const now = new Date();
  const made = await tx
    .insert(runs)
    .values({
      id: runId,
      meshId: start.child.meshId,
      meshName: start.child.meshName,
      meshVersion: start.child.version,
      status: 'running',
      input: payload,
      createdBy: start.createdBy,
      startedAt: now,
      movedAt: now,
      parentRunId: start.parentRunId,
      parentMessageId: start.parentMessageId,
    })
    .onConflictDoNothing()
    .returning({ id: runs.id });
  if (made.length === 0) return undefined;
  const messageId = headMessageId(runId);
  await tx.insert(messages).values({ id: messageId, runId, member: start.child.head, pool: start.child.pool, payload });
  return { runId, messageId, pool: start.child.pool, member: start.child.head };
}
