/**
 * Admission: before a run starts it is weighed against the capacity it needs, and the verdict is
 * stored on the run (`runs.admission`) in words a person reads on the run page, the Runs tab and
 * from the assistant.
 *
 * - `refused`: starting would pass a cap at once: an admin's cap on one author's share that the run
 *   would certainly pass (TRELLIS_MAX_SPLIT_BRANCHES on the input, TRELLIS_SANDBOX_MEMORY_MB;
 *   runs/admission-caps.ts), or an agent of the mesh has already spent its day
 *   budget (`budget.tokensPerDay` / `budget.usdPerDay`, from `agent_spend`). The run is recorded as
 *   failed with `budget_spent` and the start answers 429 (runs/start-run.ts).
 * - `wait` for `user_runs` / `mesh_runs`: the run's user or mesh has as many runs open as its
 *   concurrency limit allows; the run is HELD (queued, no message) until the orchestrator releases
 *   it (runs/run-limits.ts; decided in the start's transaction, not here).
 * - `wait`: the run is queued but cannot start yet, for one resource: `worker` (no live worker
 *   heartbeat on the head's pool, runtime/heartbeats.ts), `db_pool` (every connection of the
 *   database pool is out and queries queue for one), `slots` (the pool's workers hold as many
 *   messages as their concurrency and more wait), or `model_rate` (the model's provider answered
 *   429 within its retry-after, budgets/rate-limited.ts; or a model's calls or tokens in the last
 *   minute reach the provider's configured `requestsPerMinute` / `tokensPerMinute`). The
 *   estimate comes from the pool's completed jobs per minute (BullMQ metrics), the model's
 *   window or the retry-after left; a run still waiting past its mesh's `limits.capacityWaitSeconds` (default
 *   TRELLIS_CAPACITY_WAIT_SECONDS) fails `capacity_wait_exceeded` ({@link failOverdueWaits}).
 * - `now`: none of the above.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { AgentMember, Member } from '@trellis/mesh/schema';
import type { Engine } from '../kernel/engine';
import type { Plan } from '../plan/plan';
import { poolOf } from '../plan/plan';
import { rows } from '../kernel/sql';
import { msgStatus, msgStatuses, runStatuses } from '../kernel/statuses';
import { overBudget, spentSoFar } from '../budgets/spend-ledger';
import { rateLimitedNow } from '../budgets/rate-limited';
import { capRefusal } from './admission-caps';
import { agentOfStep } from '../members/workflow/steps/agent';
import { liveWorkers } from '../kernel/heartbeats';
import { failRun } from '../process/run-end';
import { fenced, type Fence } from '../kernel/fence';
import { HELD } from './run-limits';
import { duration, messagesAhead, type Admission, type WaitResource } from './admission-verdict';

/** The agents of a mesh: agent members, and the agent steps of workflows (as their workflow's member). */
function agentsOf(members: Iterable<Member>): AgentMember[] {
  const agents: AgentMember[] = [];
  for (const m of members) {
    if (m.kind === 'agent') agents.push(m);
    if (m.kind === 'workflow') for (const s of m.steps) if (s.type === 'agent') agents.push(agentOfStep(m.id, s));
  }
  return agents;
}

/** What {@link admit} weighs. */
export interface AdmitInput {
  plan: Plan;
  meshId: string;
  /** The run about to start (its own spend is none yet). */
  runId: string;
  /** The head's input payload, for the caps it would certainly pass (runs/admission-caps.ts); unchecked when absent. */
  payload?: unknown;
  now?: Date;
}

/**
 * Takes the admission verdict of a run of `plan` about to start; reads only (the caller stores it).
 * @throws the Redis or database error when one does not answer.
 */
export async function admit(engine: Engine, input: AdmitInput): Promise<Admission> {
  // Read before this admission's own queries take a connection of the pool.
  const db = dbPoolLoad(engine);
  const now = input.now ?? new Date();
  const at = now.toISOString();
  const agents = agentsOf(input.plan.members.values());

  const refused = (input.payload !== undefined ? capRefusal(input.plan.head, input.plan.members.values(), input.payload) : undefined) ?? (await budgetRefusal(engine, agents, input));
  if (refused) return { verdict: 'refused', cap: refused.cap, sentence: `Refused: ${refused.sentence} (${refused.cap}).`, at };

  const pool = poolOf(input.plan.head);
  const [{ workers, slots }, load] = await Promise.all([liveWorkers(engine, pool), poolLoad(engine, pool)]);
  const behind = load.pending;
  const waitLimitSeconds = input.plan.mesh.limits?.capacityWaitSeconds ?? engine.config.capacityWaitSeconds;
  const wait = (resource: WaitResource, estimateSeconds: number | null, sentence: string, model?: string): Admission => ({
    verdict: 'wait',
    resource,
    pool,
    behind,
    workers,
    slots,
    ...(model ? { model } : {}),
    estimateSeconds: estimateSeconds === null ? null : Math.round(estimateSeconds),
    waitLimitSeconds,
    sentence,
    at,
  });
  const about = (s: number | null) => (s === null ? '' : `, ${s < 1 ? 'in' : 'about'} ${duration(s)}`);

  if (workers === 0) return wait('worker', null, `Waits for a worker on pool ${pool}: none is running; ${messagesAhead(behind)}.`);

  if (db && db.waiting > 0 && db.total >= db.max) {
    return wait('db_pool', null, `Waits for a database connection: all ${db.max} are in use and ${db.waiting} ${db.waiting === 1 ? 'query waits' : 'queries wait'}.`);
  }

  if (behind > 0 && load.running >= slots) {
    const perSecond = await completedPerSecond(engine, pool);
    const estimate = perSecond > 0 ? behind / perSecond : null;
    const held = `${workers} ${workers === 1 ? 'worker holds' : 'workers hold'} ${slots} ${slots === 1 ? 'message' : 'messages'} at once and all are busy`;
    return wait('slots', estimate, `Waits for a free slot on pool ${pool}: its ${held}; ${messagesAhead(behind)}${about(estimate)}.`);
  }

  const rate = await modelRateWait(engine, agents, now);
  if (rate) return wait('model_rate', rate.estimateSeconds, `Waits for the rate limit of model ${rate.model}: ${rate.used}; ${rate.limit}${about(rate.estimateSeconds)}.`, rate.model);

  const on = `${workers} ${workers === 1 ? 'worker' : 'workers'} on pool ${pool}`;
  return { verdict: 'now', pool, workers, slots, behind, sentence: `Runs now: ${on}, ${messagesAhead(behind)}.`, at };
}

/** The first agent whose day budget is already spent, as the cap's name and the budget's sentence. */
async function budgetRefusal(engine: Engine, agents: readonly AgentMember[], input: AdmitInput): Promise<{ cap: string; sentence: string } | undefined> {
  for (const agent of agents) {
    const { tokensPerDay, usdPerDay } = agent.budget ?? {};
    if (tokensPerDay === undefined && usdPerDay === undefined) continue;
    const spent = await spentSoFar(engine.db, { runId: input.runId, meshId: input.meshId, member: agent.id }, input.now);
    for (const [field, limits] of [['tokensPerDay', { tokensPerDay }], ['usdPerDay', { usdPerDay }]] as const) {
      const over = overBudget(agent.id, limits, spent, true);
      if (over) return { cap: `budget of agent ${agent.id}: ${field}`, sentence: over };
    }
  }
  return undefined;
}

/** Messages of `pool` waiting to start and running now (counted up to 100 000 each). */
async function poolLoad(engine: Engine, pool: string): Promise<{ pending: number; running: number }> {
  const [row] = await rows(
    engine.db,
    sql`select (select count(*) from (select 1 from messages where pool = ${pool} and status = ${msgStatus('pending')} limit 100000) p)::int as pending,
               (select count(*) from (select 1 from messages where pool = ${pool} and status = ${msgStatus('running')} limit 100000) r)::int as running`,
    z.object({ pending: z.number(), running: z.number() }),
  );
  return { pending: row?.pending ?? 0, running: row?.running ?? 0 };
}

/** The database pool (node-postgres `Pool` behind Drizzle); undefined on the embedded database. */
function dbPoolLoad(engine: Engine): { max: number; total: number; waiting: number } | undefined {
  const client = (engine.db as unknown as { $client?: { totalCount?: unknown; waitingCount?: unknown; options?: { max?: unknown } } }).$client;
  if (!client || typeof client.totalCount !== 'number' || typeof client.waitingCount !== 'number') return undefined;
  const max = typeof client.options?.max === 'number' ? client.options.max : 10;
  return { max, total: client.totalCount, waiting: client.waitingCount };
}

/**
 * Jobs the pool completed per second over the last 15 minutes, from BullMQ's metrics (one data
 * point per minute, kept by workers started with `metrics`); 0 without history or on the in-process bus.
 */
async function completedPerSecond(engine: Engine, pool: string): Promise<number> {
  if (engine.localBus) return 0;
  const metrics = await engine.queue(pool).getMetrics('completed', 0, 14);
  const done = metrics.data.reduce((a, b) => a + b, 0);
  return metrics.data.length === 0 ? 0 : done / (metrics.data.length * 60);
}

/**
 * The first model whose provider answered 429 within its retry-after window (budgets/rate-limited.ts;
 * estimate: the time left of it), else whose calls or tokens in the last minute reach its
 * provider's configured limit.
 */
async function modelRateWait(
  engine: Engine,
  agents: readonly AgentMember[],
  now: Date,
): Promise<{ model: string; used: string; limit: string; estimateSeconds: number | null } | undefined> {
  const pairs = agents.flatMap((a) => (a.provider ? [{ model: a.model, baseUrl: a.provider.baseUrl }] : []));
  const [observed] = await rateLimitedNow(engine.db, pairs, now);
  if (observed) {
    const ago = Math.max(0, (now.getTime() - observed.at.getTime()) / 1000);
    return {
      model: observed.model,
      used: `its provider ${observed.baseUrl} answered 429 Too Many Requests ${duration(ago)} ago`,
      limit: observed.retryAfterMs === null ? 'it sent no retry-after, so a minute is assumed' : `it asked to wait ${duration(observed.retryAfterMs / 1000)} (retry-after)`,
      estimateSeconds: Math.max(1, (observed.until.getTime() - now.getTime()) / 1000),
    };
  }
  const limited = new Map<string, { rpm?: number; tpm?: number }>();
  for (const a of agents) {
    const rpm = a.provider?.requestsPerMinute;
    const tpm = a.provider?.tokensPerMinute;
    if (rpm === undefined && tpm === undefined) continue;
    const known = limited.get(a.model) ?? {};
    // Several agents on one model: the tightest limit holds.
    limited.set(a.model, { rpm: Math.min(known.rpm ?? Infinity, rpm ?? Infinity), tpm: Math.min(known.tpm ?? Infinity, tpm ?? Infinity) });
  }
  for (const [model, { rpm, tpm }] of limited) {
    const since = new Date(now.getTime() - 60_000).toISOString();
    const [row] = await rows(
      engine.db,
      sql`select count(*)::int as calls, coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint::text as tokens, min(at) as oldest
            from agent_spend where model = ${model} and at > ${since}::timestamptz`,
      z.object({ calls: z.number(), tokens: z.string(), oldest: z.union([z.date(), z.string()]).nullable() }),
    );
    const calls = row?.calls ?? 0;
    const tokens = Number(row?.tokens ?? 0);
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : undefined;
    // The window frees as its oldest call turns a minute old.
    const estimateSeconds = oldest === undefined ? null : Math.max(1, (oldest + 60_000 - now.getTime()) / 1000);
    if (rpm !== undefined && Number.isFinite(rpm) && calls >= rpm) {
      return { model, used: `${calls} calls in the last minute`, limit: `its provider allows ${rpm} a minute`, estimateSeconds };
    }
    if (tpm !== undefined && Number.isFinite(tpm) && tokens >= tpm) {
      return { model, used: `${tokens} tokens in the last minute`, limit: `its provider allows ${tpm} a minute`, estimateSeconds };
    }
  }
  return undefined;
}

/** SQL: a run's verdict is `wait` and the wait has not ended (the partial index runs_admission_waiting_idx). */
const WAITING = sql`admission ->> 'verdict' = 'wait' and not (admission ? 'settledAt')`;
const ISO = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);

/**
 * The orchestrator's admission pass. Ends the wait of waiting runs whose first message has started
 * (`admission.startedAt`, `settledAt`) or that ended otherwise (`settledAt`), then fails the running
 * or stalled runs, and the runs held queued for a concurrency limit (runs/run-limits.ts), still
 * waiting past their `waitLimitSeconds` with `capacity_wait_exceeded`, the
 * cause text saying how long and the wait's own sentence; their waiting messages are cancelled so
 * no worker starts them later. With `fence` (the orchestrator leader's pass, runtime/leader.ts)
 * each of its transactions first checks the lease (kernel/fence.ts), so a deposed leader fails no run.
 * @returns the runs it failed.
 * @throws FenceLostError when `fence` no longer holds its lease; nothing more is written then.
 */
export async function failOverdueWaits(engine: Engine, fence?: Fence): Promise<string[]> {
  const { db } = engine;
  await db.transaction(async (tx) => {
    await fenced(tx, fence);
    await tx.execute(
      sql`update runs set admission = admission || jsonb_build_object('startedAt', to_char(m.started_at at time zone 'UTC', ${ISO}), 'settledAt', to_char(now() at time zone 'UTC', ${ISO}))
            from (select run_id, min(coalesce(started_at, finished_at, now())) as started_at from messages
                   where run_id in (select id from runs where ${WAITING})
                     and status in ${msgStatuses('running', 'done', 'dead', 'parked', 'filtered')} group by run_id) m
           where m.run_id = runs.id and ${WAITING}`,
    );
    await tx.execute(
      sql`update runs set admission = admission || jsonb_build_object('settledAt', to_char(coalesce(ended_at, now()) at time zone 'UTC', ${ISO}))
           where ${WAITING} and status not in ${runStatuses('running', 'stalled', 'queued')}`,
    );
  });
  const overdue = await rows(
    db,
    sql`select id, admission ->> 'sentence' as sentence, (admission ->> 'waitLimitSeconds')::int as limit_seconds,
               extract(epoch from now() - (admission ->> 'at')::timestamptz)::float8 as waited
          from runs
         where ${WAITING} and (status in ${runStatuses('running', 'stalled')} or (${HELD}))
           and (admission ->> 'at')::timestamptz < now() - make_interval(secs => (admission ->> 'waitLimitSeconds')::int)`,
    z.object({ id: z.string(), sentence: z.string(), limit_seconds: z.number(), waited: z.number() }),
  );
  const failed: string[] = [];
  for (const r of overdue) {
    const detail = `it waited ${duration(r.waited)}, past its limit of ${duration(r.limit_seconds)}. ${r.sentence}`;
    const ended = await db.transaction(async (tx) => {
      await fenced(tx, fence);
      const done = await failRun(tx, r.id, { cause: 'capacity_wait_exceeded', detail }, { queued: true });
      if (done) {
        await tx.execute(sql`update messages set status = ${msgStatus('cancelled')}, finished_at = now()
                              where run_id = ${r.id} and status = ${msgStatus('pending')}`);
        await tx.execute(sql`update runs set admission = admission || jsonb_build_object('settledAt', to_char(now() at time zone 'UTC', ${ISO})) where id = ${r.id}`);
      }
      return done;
    });
    if (ended) failed.push(r.id);
  }
  return failed;
}
