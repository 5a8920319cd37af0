/**
 * Processing a batch of deliveries: resolve each run's plan (cached) → park services and nested
 * meshes → claim heavy members under a lease and start their steps → one transaction that completes
 * the light members and runs them, runs the joins and inserts every child → add the new children's
 * jobs → finalize the runs that may have ended. A failing batch is retried message by message, so
 * one bad message never takes others down with it; deadlocks are retried whole.
 *
 * Heavy steps do not hold their batch back: each one's outcome is a promise of its own, settled
 * when its step ends and its commit (grouped with the heavy steps that end around the same time,
 * see {@link HeavyLane}) is done, so a step that fails after 1 s is retried then, not after its
 * slowest batch-mate.
 */
import { enqueue } from '../kernel/queues';
import { plansForRuns, type Plan } from '../plan/plan';
import type { Engine } from '../kernel/engine';
import { failRun, finalizeRuns } from './run-end';
import { isConnectionError, isRetryableTxError } from '../kernel/sql';
import { Batcher } from './batcher';
import { cancelEnded, claimHeavy, handBackHeavy, type ClaimedHeavy, type Delivery } from './claim';
import { commit, prepareHeavy, type Prepared } from './commit';
import { DrainedError, isStopped, LeaseKeeper, RunEndedError } from './lease';
import { noteCommitted, noteInserted } from './stats';
import { stepDuration } from '../kernel/metrics';
import { recordStepSpan } from '../kernel/tracing';
import { ACK, DRAINED, type Outcome } from './types';
import { parkDeliveries } from './park';
import { laneOf } from '../members/index';
import type { InlineTaker } from './inline-lanes';

/**
 * One worker's heavy lane: the leases its running steps hold, and the group commit of the heavy
 * steps that have ended. Create one per worker (runtime/worker.ts); {@link processBatch} makes a
 * short-lived one when given none.
 */
export class HeavyLane {
  readonly leases: LeaseKeeper;
  /**
   * Called when a group commit of heavy steps is done, just before their deliveries are answered
   * (the worker corks its Redis connection there, so their acknowledgements leave in one write).
   */
  afterCommit: (() => void) | undefined;
  private readonly commits: Batcher<Prepared, Outcome>;

  /** `inline`: the worker's inline lanes (process/inline-lanes.ts), taking the light children of its commits. */
  constructor(
    private readonly engine: Engine,
    readonly inline?: InlineTaker,
  ) {
    const { leaseMs } = engine.config;
    this.leases = new LeaseKeeper(engine.db, leaseMs, Math.max(Math.floor(leaseMs / 3), 50));
    this.commits = new Batcher<Prepared, Outcome>((items) => this.commitBatch(items), {
      maxBatch: 500,
      maxInFlight: engine.config.batchesInFlight,
    });
  }

  /** Runs one claimed heavy message's step under its lease, then commits it; never rejects. */
  async run(msg: ClaimedHeavy, plan: Plan, claimedAt: number): Promise<Outcome> {
    const lease = this.leases.hold(msg.id, msg.runId, msg.leaseToken, claimedAt);
    try {
      // Claimed after the drain deadline: hand it back before it starts.
      if (lease.signal.reason instanceof DrainedError) return await this.handBack(msg);
      let prepared: Prepared;
      const startedAt = Date.now();
      const kind = plan.members.get(msg.member)?.kind ?? 'unknown';
      const span = { runId: msg.runId, messageId: msg.id, member: msg.member, kind, attempt: msg.attempts, startedAt };
      try {
        prepared = await prepareHeavy(this.engine, msg, plan, lease);
        stepDuration.observe({ kind }, (Date.now() - startedAt) / 1000);
        recordStepSpan({ ...span, endedAt: Date.now() });
      } catch (err) {
        recordStepSpan({ ...span, endedAt: Date.now(), error: asError(err) });
        if (lease.signal.reason instanceof DrainedError || err instanceof DrainedError) return await this.handBack(msg);
        if (isStopped(lease.signal.reason) || isStopped(err)) return await this.stopped(msg, lease.signal.reason ?? err);
        return { kind: 'failed', error: asError(err), leaseToken: msg.leaseToken };
      }
      // The run ended or another delivery took over while the step finished: publish nothing. A step
      // that finished despite the drain still holds its lease and commits.
      if (lease.signal.aborted && !(lease.signal.reason instanceof DrainedError)) return await this.stopped(msg, lease.signal.reason);
      return await this.commits.submit(msg.id, prepared);
    } catch (err) {
      return { kind: 'failed', error: asError(err), leaseToken: msg.leaseToken };
    } finally {
      this.leases.release(msg.id);
    }
  }

  /** A step the drain stopped: its message is released, uncounted, for the next delivery. */
  private async handBack(msg: ClaimedHeavy): Promise<Outcome> {
    const released = await handBackHeavy(this.engine.db, msg.id, msg.leaseToken);
    this.engine.log.warn('step handed back', { message: msg.id, run: msg.runId, released });
    return DRAINED;
  }

  /** A step stopped on purpose: a run that ended cancels the message; a lost lease is the new holder's. */
  private async stopped(msg: ClaimedHeavy, reason: unknown): Promise<Outcome> {
    if (reason instanceof RunEndedError) await cancelEnded(this.engine.db, [msg.id]);
    this.engine.log.warn('step stopped', { message: msg.id, run: msg.runId, reason: asError(reason).message });
    return ACK;
  }

  private async commitBatch(items: Prepared[]): Promise<Map<string, Outcome>> {
    const outcomes = new Map<string, Outcome>(items.map((p) => [p.msg.id, ACK]));
    const plans = new Map(items.map((p) => [p.msg.runId, p.plan]));
    await commitIsolating(this.engine, [], items, plans, outcomes, this.inline);
    this.afterCommit?.();
    return outcomes;
  }
}

/**
 * Processes the deliveries; every message id gets an outcome (already finished ones: `ack`). Light
 * and parked messages are answered when this resolves; a heavy message's answer is a promise that
 * settles when its step and commit are done.
 */
export async function processBatch(
  engine: Engine,
  deliveries: readonly Delivery[],
  lane: HeavyLane = new HeavyLane(engine),
): Promise<Map<string, Outcome | Promise<Outcome>>> {
  const outcomes = new Map<string, Outcome | Promise<Outcome>>(deliveries.map((d) => [d.messageId, ACK]));
  const plans = await plansForRuns(engine, deliveries.map((d) => d.runId));
  const light: string[] = [];
  const heavyIds: string[] = [];
  const unplanned: string[] = [];
  const parking: Delivery[] = [];
  for (const d of deliveries) {
    const member = plans.get(d.runId)?.members.get(d.member);
    if (!member) unplanned.push(d.messageId);
    else {
      // inline and join messages complete in the commit transaction that claims them.
      const lane = laneOf(member);
      if (lane === 'park') parking.push(d);
      else if (lane === 'heavy') heavyIds.push(d.messageId);
      else light.push(d.messageId);
    }
  }
  // Park-lane messages (process/park.ts): no worker waits; voids pass on as heavy.
  const settled = new Map<string, Outcome>();
  heavyIds.push(...(await parkDeliveries(engine, parking, plans, settled)));
  const claimedAt = Date.now();
  const { claimed, leased } = await claimHeavy(engine.db, heavyIds, lane.leases.owner, lane.leases.leaseMs);
  for (const [id, until] of leased) settled.set(id, { kind: 'wait', until });
  for (const msg of claimed) outcomes.set(msg.id, lane.run(msg, plans.get(msg.runId) as Plan, claimedAt));
  const handled = await commitIsolating(engine, light, [], plans, settled, lane.inline);
  for (const [id, o] of settled) outcomes.set(id, o);
  for (const id of unplanned) {
    // A job whose run or member is unknown: nothing to do but say so; the job is acknowledged.
    engine.log.warn('delivery for an unknown run or member', { message: id });
  }
  const running = new Set(claimed.map((m) => m.id));
  const left = deliveries.map((d) => d.messageId).filter((id) => !handled.has(id) && !running.has(id) && !settled.has(id));
  await cancelEnded(engine.db, left);
  return outcomes;
}

async function commitIsolating(
  engine: Engine,
  light: string[],
  heavy: Prepared[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
  inline?: InlineTaker,
): Promise<Set<string>> {
  if (light.length === 0 && heavy.length === 0) return new Set();
  try {
    return await commitWithRetry(engine, light, heavy, plans, outcomes, inline);
  } catch (err) {
    if (light.length + heavy.length === 1 || isConnectionError(err)) {
      // One message, or a database that is away: no point in trying the messages one by one.
      for (const id of light) outcomes.set(id, { kind: 'failed', error: asError(err) });
      for (const p of heavy) outcomes.set(p.msg.id, { kind: 'failed', error: asError(err), leaseToken: p.leaseToken ?? undefined });
      return new Set([...light, ...heavy.map((p) => p.msg.id)]);
    }
    engine.log.warn('batch commit failed; retrying message by message', { size: light.length + heavy.length, error: asError(err).message });
    const handled = new Set<string>();
    for (const id of light) for (const h of await commitIsolating(engine, [id], [], plans, outcomes, inline)) handled.add(h);
    for (const p of heavy) for (const h of await commitIsolating(engine, [], [p], plans, outcomes, inline)) handled.add(h);
    return handled;
  }
}

async function commitWithRetry(
  engine: Engine,
  light: string[],
  heavy: Prepared[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
  inline: InlineTaker | undefined,
): Promise<Set<string>> {
  for (let attempt = 1; ; attempt++) {
    let result: Awaited<ReturnType<typeof commit>>;
    try {
      result = await engine.db.transaction((tx) => commit(tx, light, heavy, plans, engine.config.maxDepth, failRun, inline));
    } catch (err) {
      const wait = retryDelayMs(err, attempt);
      if (wait === undefined) throw err;
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    for (const [id, error] of result.failed) outcomes.set(id, { kind: 'failed', error });
    noteInserted(engine, result.children.length);
    noteCommitted(result);
    if (engine.config.crashAfterCommit && result.children.length > 0) {
      // Test-only fault: die between the commit (children are rows now) and adding their jobs.
      process.kill(process.pid, 'SIGKILL');
    }
    try {
      // After commit: the rows are the outbox. If Redis or the database blinks here, the relay
      // re-adds the children's jobs and the orchestrator's sweep ends the run.
      // Light children this worker keeps inline are its own queue's (process/inline-lane.ts), not jobs.
      const jobs = inline ? inline.take(result.children) : result.children;
      await enqueue(engine, jobs.map((c) => ({ pool: c.pool, runId: c.run_id, messageId: c.id, member: c.member })));
      await finalizeRuns(engine, result.quiet);
    } catch (err) {
      engine.log.warn('after commit: left for the relay and the sweep', { error: asError(err).message });
    }
    return result.handled;
  }
}

/**
 * How long to wait before retrying a failed commit in place, or undefined when a retry cannot help.
 * The transaction is idempotent (every write is guarded), so replaying it is safe.
 */
function retryDelayMs(err: unknown, attempt: number): number | undefined {
  if (attempt >= 4) return undefined;
  if (isRetryableTxError(err)) return 10 * attempt + Math.random() * 20;
  if (isConnectionError(err)) return 250 * 2 ** (attempt - 1);
  return undefined;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
