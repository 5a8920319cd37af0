/**
 * Concurrency limits at admission: how many top-level runs one user, and one mesh, may have open
 * (running or stalled) at once, so one author cannot take a whole pool.
 *
 * - The admin sets the caps: TRELLIS_MAX_RUNS_PER_USER and TRELLIS_MAX_RUNS_PER_MESH (0 = none).
 * - A mesh may ask for less with `limits.maxConcurrentRuns`; it can only lower the admin's mesh cap.
 *   A value above the cap is clamped to the cap (the mesh file is not refused, since the admin may
 *   lower the cap after the mesh was saved), and the held run's sentence says so.
 * - "The user" of a run is the user who asked for it (`runs.created_by`): the signed-in person, or
 *   the owner of the API token (REST with a token, MCP, A2A, the CLI's user). Runs started by
 *   Trellis itself (schedules, signed webhooks, event subjects, inbound email: the system actor) have no user and
 *   count only against their mesh's limit. Child runs of nested-mesh members are part of their
 *   parent run: they neither count nor wait (a held child could wait for its own parent forever).
 *
 * A run over a limit is HELD: it is stored `queued` with a `wait` verdict for `user_runs` or
 * `mesh_runs` and no message at all, so no worker or relay can start it. The orchestrator's admission
 * pass ({@link releaseHeldRuns}) writes its head message, oldest held run first, once its user and
 * mesh are below their limits; a held run still waiting past its wait limit fails
 * `capacity_wait_exceeded` (runs/admission.ts `failOverdueWaits`), and a person may cancel it.
 *
 * Both a start and a release decide under a transaction-scoped advisory lock per user and per
 * mesh (taken in that order), so two starts at once cannot both pass a limit of 1.
 */
import { z } from 'zod';
import { sql, type SQL } from 'drizzle-orm';
import type { Mesh } from '@trellis/mesh/schema';
import { messages } from '@trellis/db/schema/messages';
import type { Engine, EngineConfig } from '../kernel/engine';
import { rows, type Queryable } from '../kernel/sql';
import { runStatus, runStatuses } from '../kernel/statuses';
import { headMessageId } from '../kernel/ids';
import { enqueue } from '../kernel/queues';
import { fenced, type Fence } from '../kernel/fence';
import { countMessages } from '../kernel/metrics';
import { publishUrgent } from '../kernel/priority';
import { recordEvents } from '../events/outbox';
import { loadPlan, poolOf } from '../plan/plan';
import { duration, type Admission } from './admission-verdict';

/** One limit a run is weighed against. */
export interface RunLimit {
  scope: 'user' | 'mesh';
  /** The user id (`runs.created_by`) or the mesh id. */
  key: string;
  /** Open runs allowed at once (≥ 1). */
  limit: number;
  /** What set it, in the sentence's parentheses: `policy TRELLIS_MAX_RUNS_PER_USER`, …. */
  source: string;
}

/**
 * The limits a top-level run of `mesh` started by `userId` is weighed against: the user's (only
 * with a user and TRELLIS_MAX_RUNS_PER_USER set), then the mesh's (the lower of the admin's cap and
 * the mesh's `limits.maxConcurrentRuns`). Empty when none applies. Pure.
 */
export function runLimitsOf(config: Pick<EngineConfig, 'maxRunsPerUser' | 'maxRunsPerMesh'>, mesh: { id: string; file: Pick<Mesh, 'limits'> }, userId: string | null | undefined): RunLimit[] {
  const limits: RunLimit[] = [];
  if (userId && config.maxRunsPerUser > 0) limits.push({ scope: 'user', key: userId, limit: config.maxRunsPerUser, source: 'policy TRELLIS_MAX_RUNS_PER_USER' });
  const admin = config.maxRunsPerMesh;
  const asked = mesh.file.limits?.maxConcurrentRuns;
  if (asked !== undefined && (admin === 0 || asked <= admin)) {
    limits.push({ scope: 'mesh', key: mesh.id, limit: asked, source: `the mesh's limits.maxConcurrentRuns${admin > 0 ? `, below policy TRELLIS_MAX_RUNS_PER_MESH of ${admin}` : ''}` });
  } else if (admin > 0) {
    const clamped = asked !== undefined ? `; the mesh's limits.maxConcurrentRuns of ${asked} is above it and is clamped to it` : '';
    limits.push({ scope: 'mesh', key: mesh.id, limit: admin, source: `policy TRELLIS_MAX_RUNS_PER_MESH${clamped}` });
  }
  return limits;
}

/**
 * SQL: a top-level run held at admission for a concurrency limit (queued, no message yet). It
 * repeats the predicate of the partial index runs_admission_waiting_idx (a held run's wait has not
 * ended), so the orchestrator's every-tick look for held runs reads that index, not the table.
 */
export const HELD = sql`admission ->> 'verdict' = 'wait' and not (admission ? 'settledAt') and status = ${runStatus('queued')} and parent_run_id is null and admission ->> 'resource' in ('user_runs', 'mesh_runs')`;

const column = (scope: RunLimit['scope']): SQL => (scope === 'user' ? sql`created_by` : sql`mesh_id`);

/** What {@link holdOf} weighs. */
export interface HoldInput {
  limits: readonly RunLimit[];
  /** The run being started or released; held runs with a smaller id (older: ids are UUIDv7) are ahead of it. */
  runId: string;
  meshName: string;
  /** The head's pool, and the verdict admission took otherwise (its worker counts are kept). */
  pool: string;
  base: Admission | null;
  waitLimitSeconds: number;
  now?: Date;
}

/**
 * Takes the advisory lock of every limit (user first, then mesh; held until the transaction
 * ends), then counts: the run is held when its user's or mesh's open top-level runs reach the
 * limit, or older runs of theirs are held still (first come, first started).
 * Call it inside the transaction that then writes the run (start) or its head message (release).
 * @returns the `wait` verdict (`user_runs` / `mesh_runs`) to store, or undefined when it may run.
 */
export async function holdOf(tx: Queryable, input: HoldInput): Promise<Admission | undefined> {
  for (const l of input.limits) await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`trellis.run-limit:${l.scope}:${l.key}`}, 0))`);
  for (const l of input.limits) {
    const col = column(l.scope);
    const [row] = await rows(
      tx,
      sql`select (select count(*) from runs where ${col} = ${l.key} and status in ${runStatuses('running', 'stalled')} and parent_run_id is null)::int as open,
                 (select count(*) from runs where ${col} = ${l.key} and ${HELD} and id < ${input.runId})::int as ahead`,
      z.object({ open: z.number(), ahead: z.number() }),
    );
    const open = row?.open ?? 0;
    const ahead = row?.ahead ?? 0;
    if (open < l.limit && ahead === 0) continue;
    const estimate = await estimateSeconds(tx, l, ahead);
    return {
      verdict: 'wait',
      resource: l.scope === 'user' ? 'user_runs' : 'mesh_runs',
      pool: input.pool,
      behind: ahead,
      workers: input.base && input.base.verdict !== 'refused' ? input.base.workers : 0,
      slots: input.base && input.base.verdict !== 'refused' ? input.base.slots : 0,
      estimateSeconds: estimate === null ? null : Math.round(estimate),
      waitLimitSeconds: input.waitLimitSeconds,
      sentence: holdSentence(l, input.meshName, open, ahead, estimate),
      at: (input.now ?? new Date()).toISOString(),
    };
  }
  return undefined;
}

/**
 * The held run's sentence, e.g. `Waits for one of your 3 runs to finish: user limit of 3
 * concurrent runs (policy TRELLIS_MAX_RUNS_PER_USER).` Pure.
 */
export function holdSentence(l: RunLimit, meshName: string, open: number, ahead: number, estimate: number | null): string {
  const runs = (n: number) => `${n} ${n === 1 ? 'run' : 'runs'}`;
  const whose =
    l.scope === 'user'
      ? open === 1 ? 'your other run' : `one of your ${open} runs`
      : open === 1 ? `the other run of mesh ${meshName}` : `one of the ${open} runs of mesh ${meshName}`;
  const first = open >= l.limit ? `Waits for ${whose} to finish` : `Waits behind ${runs(ahead)} held before it`;
  const behind = open >= l.limit && ahead > 0 ? `; ${runs(ahead)} held before it` : '';
  const about = estimate === null ? '' : `, ${estimate < 1 ? 'in' : 'about'} ${duration(estimate)}`;
  return `${first}: ${l.scope} limit of ${runs(l.limit).replace('run', 'concurrent run')} (${l.source})${behind}${about}.`;
}

/**
 * How long until the run likely starts: the mean duration of the scope's last 20 finished
 * top-level runs, times the held runs ahead of it plus itself, over the limit; null without history.
 */
async function estimateSeconds(tx: Queryable, l: RunLimit, ahead: number): Promise<number | null> {
  const [row] = await rows(
    tx,
    sql`select avg(extract(epoch from ended_at - started_at))::float8 as mean from (
          select ended_at, started_at from runs
           where ${column(l.scope)} = ${l.key} and parent_run_id is null and ended_at is not null and started_at is not null
             and status in ${runStatuses('done', 'failed')}
           order by ended_at desc limit 20) r`,
    z.object({ mean: z.number().nullable() }),
  );
  const mean = row?.mean ?? null;
  return mean === null ? null : Math.max(1, (mean * (ahead + 1)) / l.limit);
}

const HeldRow = z.object({ id: z.string(), mesh_id: z.string(), mesh_name: z.string(), mesh_version: z.number(), created_by: z.string().nullable(), input: z.unknown() });

/**
 * The orchestrator's release of held runs, oldest first: each whose user and mesh are below their
 * limits (and with no older held run of theirs) becomes `running`, its head message is written
 * (payload: the run's input) and put on the bus. Runs of a mesh version that cannot be loaded stay held.
 * With `fence` (the orchestrator leader's pass) each release first checks the lease (kernel/fence.ts).
 * @returns the runs it released.
 * @throws FenceLostError when `fence` no longer holds its lease; nothing more is released then.
 */
export async function releaseHeldRuns(engine: Engine, fence?: Fence, max = 500): Promise<string[]> {
  const held = await rows(engine.db, sql`select id, mesh_id, mesh_name, mesh_version, created_by, input from runs where ${HELD} order by id limit ${max}`, HeldRow);
  const released: string[] = [];
  for (const r of held) {
    const plan = await loadPlan(engine, r.mesh_id, r.mesh_version).catch(() => undefined);
    if (!plan) continue;
    const pool = poolOf(plan.head);
    const limits = runLimitsOf(engine.config, { id: r.mesh_id, file: plan.mesh }, r.created_by);
    const waitLimitSeconds = plan.mesh.limits?.capacityWaitSeconds ?? engine.config.capacityWaitSeconds;
    const messageId = headMessageId(r.id);
    const ok = await engine.db.transaction(async (tx) => {
      await fenced(tx, fence);
      if (await holdOf(tx, { limits, runId: r.id, meshName: r.mesh_name, pool, base: null, waitLimitSeconds })) return false;
      // Still held (not cancelled or failed meanwhile): the row lock orders this after a cancel.
      const [run] = await rows(tx, sql`select id from runs where id = ${r.id} and ${HELD} for update`, z.object({ id: z.string() }));
      if (!run) return false;
      await tx.execute(
        sql`update runs set status = ${runStatus('running')}, started_at = now(), moved_at = now(),
                   admission = admission || jsonb_build_object('releasedAt', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
             where id = ${r.id}`,
      );
      await tx.insert(messages).values({ id: messageId, runId: r.id, member: plan.head.id, pool, payload: r.input ?? {} });
      await recordEvents(tx, [{ kind: 'run.status', runId: r.id, meshId: r.mesh_id, status: 'running' }]);
      return true;
    });
    if (!ok) continue;
    released.push(r.id);
    countMessages('published', 1);
    // Redis down: the message row is saved and the outbox relay adds its job later.
    try {
      await publishUrgent(engine, [r.id]);
      await enqueue(engine, [{ pool, runId: r.id, messageId, member: plan.head.id }]);
    } catch (err) {
      engine.log.warn('released run not enqueued now; the outbox relay adds it', { runId: r.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return released;
}
