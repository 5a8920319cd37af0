/**
 * Processing a batch of deliveries: resolve each run's plan (cached) → claim and run heavy members
 * → one transaction that completes light members and runs them, completes the heavy ones, runs
 * the joins and inserts every child → add the new children's jobs → finalize the runs that may
 * have ended. A failing batch is retried message by message, so one bad message never takes
 * others down with it; deadlocks are retried whole.
 */
import { enqueue } from '../bus/queues';
import { plansForRuns, type Plan } from '../exec/plan';
import type { Engine } from '../runtime/context';
import { finalizeRuns } from '../runs/finalize';
import { isConnectionError, isRetryableTxError } from '../sql';
import { cancelEnded, claimHeavy, isHeavy, type Delivery } from './claim';
import { commit, prepareHeavy, type Prepared } from './commit';
import { noteInserted } from './stats';
import type { Outcome } from './types';
import { isParking, parkDeliveries } from '../services/park';

/** Processes the deliveries; every message id gets an outcome (already finished ones: ok). */
export async function processBatch(engine: Engine, deliveries: readonly Delivery[]): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>(deliveries.map((d) => [d.messageId, { ok: true }]));
  const plans = await plansForRuns(engine, deliveries.map((d) => d.runId));
  const light: string[] = [];
  const heavyIds: string[] = [];
  const unplanned: string[] = [];
  const parking: Delivery[] = [];
  for (const d of deliveries) {
    const member = plans.get(d.runId)?.members.get(d.member);
    if (!member) unplanned.push(d.messageId);
    else if (isParking(member)) parking.push(d);
    else if (isHeavy(member)) heavyIds.push(d.messageId);
    else light.push(d.messageId);
  }
  // Services and nested meshes park (services/park.ts): no worker waits; voids pass on as heavy.
  heavyIds.push(...(await parkDeliveries(engine, parking, plans, outcomes)));
  const heavy: Prepared[] = [];
  const claimed = await claimHeavy(engine.db, heavyIds);
  const ran = await Promise.allSettled(claimed.map((msg) => prepareHeavy(engine, msg, plans.get(msg.runId) as Plan)));
  ran.forEach((r, i) => {
    if (r.status === 'fulfilled') heavy.push(r.value);
    else outcomes.set(claimed[i]?.id ?? '', { ok: false, error: asError(r.reason) });
  });
  const handled = await commitIsolating(engine, light, heavy, plans, outcomes);
  for (const id of unplanned) {
    // A job whose run or member is unknown: nothing to do but say so; the job is acknowledged.
    engine.log.warn('delivery for an unknown run or member', { message: id });
  }
  const left = deliveries.map((d) => d.messageId).filter((id) => !handled.has(id) && outcomes.get(id)?.ok !== false);
  await cancelEnded(engine.db, left);
  return outcomes;
}

async function commitIsolating(
  engine: Engine,
  light: string[],
  heavy: Prepared[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
): Promise<Set<string>> {
  if (light.length === 0 && heavy.length === 0) return new Set();
  try {
    return await commitWithRetry(engine, light, heavy, plans, outcomes);
  } catch (err) {
    if (light.length + heavy.length === 1 || isConnectionError(err)) {
      // One message, or a database that is away: no point in trying the messages one by one.
      const ids = [...light, ...heavy.map((p) => p.msg.id)];
      for (const id of ids) outcomes.set(id, { ok: false, error: asError(err) });
      return new Set(ids);
    }
    engine.log.warn('batch commit failed; retrying message by message', { size: light.length + heavy.length, error: asError(err).message });
    const handled = new Set<string>();
    for (const id of light) for (const h of await commitIsolating(engine, [id], [], plans, outcomes)) handled.add(h);
    for (const p of heavy) for (const h of await commitIsolating(engine, [], [p], plans, outcomes)) handled.add(h);
    return handled;
  }
}

async function commitWithRetry(
  engine: Engine,
  light: string[],
  heavy: Prepared[],
  plans: ReadonlyMap<string, Plan>,
  outcomes: Map<string, Outcome>,
): Promise<Set<string>> {
  for (let attempt = 1; ; attempt++) {
    let result: Awaited<ReturnType<typeof commit>>;
    try {
      result = await engine.db.transaction((tx) => commit(tx, light, heavy, plans, engine.config.maxDepth));
    } catch (err) {
      const wait = retryDelayMs(err, attempt);
      if (wait === undefined) throw err;
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    for (const [id, error] of result.failed) outcomes.set(id, { ok: false, error });
    noteInserted(engine, result.children.length);
    if (engine.config.crashAfterCommit && result.children.length > 0) {
      // Test-only fault: die between the commit (children are rows now) and adding their jobs.
      process.kill(process.pid, 'SIGKILL');
    }
    try {
      // After commit: the rows are the outbox. If Redis or the database blinks here, the relay
      // re-adds the children's jobs and the orchestrator's sweep ends the run.
      await enqueue(engine, result.children.map((c) => ({ pool: c.pool, runId: c.run_id, messageId: c.id, member: c.member })));
      await finalizeRuns(engine.db, result.quiet);
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
