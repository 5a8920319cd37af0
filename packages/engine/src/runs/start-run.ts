/** Use case: start a run of a mesh version on one input. */
import { eq } from 'drizzle-orm';
import { meshes } from '@trellis/db/schema/meshes';
import { messages } from '@trellis/db/schema/messages';
import { runs } from '@trellis/db/schema/runs';
import { hasErrors } from '@trellis/mesh/findings';
import { validateMesh } from '@trellis/mesh/validate';
import { appendAuditBy } from '../audit/append';
import { enqueue } from '../kernel/queues';
import { countMessages } from '../kernel/metrics';
import { publishUrgent } from '../kernel/priority';
import { recordEvents } from '../events/outbox';
import { AdmissionRefusedError, InputRejectedError, MeshInvalidError, MeshNotFoundError } from '../kernel/errors';
import { meshIdNotFound } from '../meshes/mesh-id-not-found';
import { causeSentence } from '@trellis/mesh/causes';
import { headMessageId, uuidv7 } from '../kernel/ids';
import { loadPlan, poolOf } from '../plan/plan';
import { loadVersion, nestedResolver } from '../plan/definition';
import { knownTools } from '../tools/known-tools';
import type { Engine } from '../kernel/engine';
import { inputPayload, type RunInput } from '../kernel/input';
import { recordRunFailure } from '../lifecycle/record-failure';
import { admit } from './admission';
import { admissionVerdicts } from '../kernel/metrics';
import type { Admission } from './admission-verdict';
import { holdOf, runLimitsOf } from './run-limits';

/**
 * A started run: its id, its head message's id, and `running`, or `queued` when it is held for a
 * concurrency limit (runs/run-limits.ts; the head message is written when it is released).
 */
export interface StartedRun {
  runId: string;
  messageId: string;
  status: 'running' | 'queued';
}

/** Which mesh (by id or name), which version (latest by default), and the input. */
export interface StartRunInput {
  meshId?: string;
  meshName?: string;
  version?: number;
  input: RunInput;
  userId?: string;
}

/** A database transaction, as {@link StartHooks.inTransaction} gets it. */
export type StartTx = Parameters<Parameters<Engine['db']['transaction']>[0]>[0];

/**
 * What a caller adds to a start (runs/start-entry-run.ts): `inTransaction` runs in the transaction
 * that inserts the run, after the run row; throwing there rolls the run back (nothing is enqueued);
 * `onRejected` runs after a refused input's, or a refused admission's, failed run is recorded.
 */
export interface StartHooks {
  inTransaction?(tx: StartTx, runId: string): Promise<void>;
  /** True when `inTransaction` writes the run's `run.start` audit entry itself (one entry per start). */
  auditsStart?: boolean;
  onRejected?(runId: string, err: InputRejectedError | AdmissionRefusedError): Promise<void>;
}

/**
 * Validates the mesh again (the authority before any run), writes the run and its head message in
 * one transaction, then enqueues the head. If Redis is down at that moment the run stays pending
 * and the orchestrator's outbox relay enqueues it later.
 * Before the insert the run is admitted (runs/admission.ts) and the verdict stored on it; in the
 * insert's transaction it is weighed against the per-user and per-mesh concurrency limits
 * (runs/run-limits.ts) and, over one, held `queued` with no message (nothing is enqueued).
 * @throws MeshNotFoundError, MeshInvalidError (with findings), InputRejectedError,
 *   AdmissionRefusedError (429: the run is recorded as failed, naming the cap),
 *   RedisUnreachableError (the run is saved and will start when Redis is back).
 */
export async function startRun(engine: Engine, input: StartRunInput, hooks: StartHooks = {}): Promise<StartedRun> {
  const { db } = engine;
  const where = input.meshId ? eq(meshes.id, input.meshId) : eq(meshes.name, input.meshName ?? '');
  const [mesh] = await db.select().from(meshes).where(where);
  if (!mesh) throw input.meshId ? await meshIdNotFound(db, input.meshId) : new MeshNotFoundError(input.meshName ?? '(none given)');
  const version = input.version ?? mesh.latestVersion;
  // Validate before compiling the plan: compiling assumes a valid mesh, and a person must see the
  // findings (head_missing, loop, …), not a compile error.
  const definition = await loadVersion(db, mesh.id, version);
  if (!definition) throw new MeshNotFoundError(`${mesh.name} version ${version}`);
  const findings = validateMesh(definition, await nestedResolver(db, definition), await knownTools(db, definition));
  if (hasErrors(findings)) throw new MeshInvalidError(findings);
  return startChecked(engine, { meshId: mesh.id, meshName: mesh.name, version, urgent: mesh.urgent }, input, hooks);
}

/**
 * Starts a run of a mesh version its caller has just validated (runs/run-mesh-file.ts): the same
 * as {@link startRun} after its check.
 * @throws InputRejectedError, AdmissionRefusedError, RedisUnreachableError (as startRun).
 */
export async function startChecked(
  engine: Engine,
  /** `urgent`: the mesh's priority default (read from the mesh row when absent). */
  mesh: { meshId: string; meshName: string; version: number; urgent?: boolean },
  input: Omit<StartRunInput, 'meshId' | 'meshName' | 'version'>,
  hooks: StartHooks = {},
): Promise<StartedRun> {
  const { db } = engine;
  const { version } = mesh;
  const plan = await loadPlan(engine, mesh.meshId, version);
  const runId = uuidv7();
  let payload: Record<string, unknown>;
  try {
    payload = inputPayload(input.input);
  } catch (err) {
    if (err instanceof InputRejectedError) {
      await recordFailedStart(engine, { runId, meshId: mesh.meshId, meshName: mesh.meshName, version, input }, 'input_rejected', err.reason);
      err.runId = runId;
      await hooks.onRejected?.(runId, err);
    }
    throw err;
  }
  const admission = await admitOrNull(engine, { plan, meshId: mesh.meshId, runId, payload });
  if (admission?.verdict === 'refused') {
    await recordFailedStart(engine, { runId, meshId: mesh.meshId, meshName: mesh.meshName, version, input }, 'budget_spent', admission.sentence, admission);
    const err = new AdmissionRefusedError(admission.cap, 'budget_spent', admission.sentence, runId);
    await hooks.onRejected?.(runId, err);
    throw err;
  }
  const messageId = headMessageId(runId);
  const pool = poolOf(plan.head);
  const urgent = mesh.urgent ?? (await db.select({ urgent: meshes.urgent }).from(meshes).where(eq(meshes.id, mesh.meshId)))[0]?.urgent ?? false;
  const limits = runLimitsOf(engine.config, { id: mesh.meshId, file: plan.mesh }, input.userId);
  const waitLimitSeconds = plan.mesh.limits?.capacityWaitSeconds ?? engine.config.capacityWaitSeconds;
  const now = new Date();
  const held = await db.transaction(async (tx) => {
    // Over a concurrency limit the run is held: queued, with no message until the orchestrator releases it.
    const hold = limits.length > 0 ? await holdOf(tx, { limits, runId, meshName: mesh.meshName, pool, base: admission, waitLimitSeconds, now }) : undefined;
    const status = hold ? 'queued' : 'running';
    await tx.insert(runs).values({
      id: runId,
      meshId: mesh.meshId,
      meshName: mesh.meshName,
      meshVersion: version,
      status,
      inputName: input.input.name ?? null,
      input: payload,
      createdBy: input.userId ?? null,
      startedAt: hold ? null : now,
      movedAt: now,
      admission: hold ?? admission,
      urgent,
    });
    await hooks.inTransaction?.(tx, runId);
    if (!hold) await tx.insert(messages).values({ id: messageId, runId, member: plan.head.id, pool, payload });
    // Live pages (the Runs tab) learn of the new run from the event outbox, like every other change.
    await recordEvents(tx, [{ kind: 'run.status', runId, meshId: mesh.meshId, status }]);
    if (!hooks.auditsStart) await appendAuditBy(tx, input.userId, { action: 'run.start', target: runId, detail: { mesh: mesh.meshName, meshId: mesh.meshId, version, input: input.input.name ?? null } });
    return hold !== undefined;
  });
  if (held) {
    admissionVerdicts.inc({ verdict: 'held' });
    return { runId, messageId, status: 'queued' };
  }
  countMessages('published', 1);
  // A run of an urgent mesh is on the urgent lanes from its head on (kernel/priority.ts).
  if (urgent) await publishUrgent(engine, [runId]);
  await enqueue(engine, [{ pool, runId, messageId, member: plan.head.id }]);
  return { runId, messageId, status: 'running' };
}

/**
 * The verdict, or null when it cannot be taken (Redis or the database not answering): a start
 * must not fail for want of a verdict, as it survives Redis being down.
 */
async function admitOrNull(engine: Engine, input: Parameters<typeof admit>[1]): Promise<Admission | null> {
  try {
    const admission = await admit(engine, input);
    admissionVerdicts.inc({ verdict: admission.verdict });
    return admission;
  } catch (err) {
    admissionVerdicts.inc({ verdict: 'none' });
    engine.log.warn('admission not taken', { runId: input.runId, error: err instanceof Error ? err.message : String(err) });
    return null;
  }
}

/** What a start refused before its run began leaves behind. */
interface FailedStart {
  runId: string;
  meshId: string;
  meshName: string;
  version: number;
  input: Pick<StartRunInput, 'input' | 'userId'>;
}

/**
 * A start refused before its run began still leaves a failed run with its cause (the input's
 * `input_rejected`, admission's `budget_spent`), so it shows among exceptions; right after, the
 * run joins its mesh's open item of that cause in the Action Center.
 */
async function recordFailedStart(engine: Engine, r: FailedStart, cause: 'input_rejected' | 'budget_spent', detail: string, admission: Admission | null = null): Promise<void> {
  const now = new Date();
  await engine.db.insert(runs).values({
    id: r.runId,
    meshId: r.meshId,
    meshName: r.meshName,
    meshVersion: r.version,
    status: 'failed',
    cause,
    causeMessage: causeSentence({ cause, detail }),
    inputName: r.input.input.name ?? null,
    input: {},
    createdBy: r.input.userId ?? null,
    startedAt: now,
    endedAt: now,
    movedAt: now,
    admission,
  });
  await recordRunFailure(engine.db, r.runId, { cause, detail });
}
