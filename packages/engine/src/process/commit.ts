/**
 * The transaction at the heart of delivery: complete the parents, run the joins, insert every
 * child, record leaf outputs, note movement. Set-based: a handful of statements per batch,
 * whatever its size. The caller adds the children's jobs after commit (the rows are the outbox).
 */
import { sql } from 'drizzle-orm';
import type { Member } from '@trellis/mesh/schema';
import { StepError } from '../errors';
import type { Item } from '../exec/frames';
import type { Plan } from '../exec/plan';
import { executeMember } from '../exec/steps';
import { runWorkflow } from '../exec/heavy-steps';
import { joinOutputId, messageId } from '../ids';
import { rows, textArray, type Queryable } from '../sql';
import type { Engine } from '../runtime/context';
import { completeHeavy, completeLight, reopenFailed } from './claim';
import { runJoins } from './join';
import { leafOutput, routeItems } from './route';
import type { ChildRow, Claimed } from './types';
import { parkForApproval, type ParkedOutput } from '../approvals/park';

/** A message ready to commit: non-combine members carry their outputs already. */
export interface Prepared {
  msg: Claimed;
  plan: Plan;
  member: Member;
  items?: Item[];
}

/** What a commit did. */
export interface CommitResult {
  /** Children inserted by this commit (existing ids excluded): their jobs are to be added. */
  children: ChildRow[];
  /**
   * Runs that may have ended: this commit added nothing new to them and completed a message that
   * ends a branch (it published nothing). A part that leaves its join waiting never ends a run (the
   * part that fires it commits later), so a batch of such parts skips the run-end probe.
   */
  quiet: string[];
  /** Light messages completed (or failed) here; the rest were finished before or their run ended. */
  handled: Set<string>;
  /** Light messages whose step threw, with the error. */
  failed: Map<string, Error>;
}

/**
 * The message's member, once the depth limit is checked.
 * @throws StepError (`budget_spent` past the depth limit; `step_code_failed` for an unknown member).
 */
function memberFor(maxDepth: number, msg: Claimed, plan: Plan): Member {
  const member = plan.members.get(msg.member);
  if (!member) throw new StepError('step_code_failed', msg.member, `member ${msg.member} is not in this version of the mesh`, false);
  if ((plan.routes.get(member.id) ?? []).length > 0 && msg.depth + 1 > maxDepth) {
    throw new StepError('budget_spent', member.id, `a message went deeper than ${maxDepth} hops, which points to a loop in the mesh`, false);
  }
  return member;
}

/**
 * Runs a light member (a combine only gets its member resolved; the join runs in the transaction).
 * @throws StepError from the depth check or the member's own failure.
 */
export function prepare(maxDepth: number, msg: Claimed, plan: Plan): Prepared {
  const member = memberFor(maxDepth, msg, plan);
  if (member.kind === 'combine') return { msg, plan, member };
  return { msg, plan, member, items: executeMember(member, msg) };
}

/**
 * Runs a heavy member, which may take long: agents go through the engine's agent runner under a
 * deadline; workflows with code, SQL, HTTP or agent steps run all their steps here (exec/heavy-steps.ts),
 * before the commit transaction opens; a void passes through untouched.
 * @throws StepError (`timed_out` when the deadline passes, or the runner's own cause).
 */
export async function prepareHeavy(engine: Engine, msg: Claimed, plan: Plan): Promise<Prepared> {
  const member = memberFor(engine.config.maxDepth, msg, plan);
  if (member.kind === 'workflow') {
    const ctx = { variables: engine.variables, db: engine.db, runAgent: engine.runAgent, agentTimeoutMs: engine.config.agentTimeoutMs };
    return { msg, plan, member, items: await runWorkflow(member, msg, ctx) };
  }
  if (member.kind !== 'agent' || msg.void) return { msg, plan, member, items: executeMember(member, msg) };
  const limit = engine.config.agentTimeoutMs;
  const signal = AbortSignal.timeout(limit);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepError('timed_out', member.id, `the agent took longer than ${limit / 1000} s`)), limit);
  });
  try {
    const payload = await Promise.race([engine.runAgent(member, msg.payload, signal), deadline]);
    return { msg, plan, member, items: [{ payload, frames: msg.frames, void: false }] };
  } finally {
    clearTimeout(timer);
  }
}

/** The transaction body; `plans` must hold the plan of every light message's run. */
export async function commit(
  tx: Queryable,
  light: readonly string[],
  heavy: readonly Prepared[],
  plans: ReadonlyMap<string, Plan>,
  maxDepth: number,
): Promise<CommitResult> {
  const ready: Prepared[] = [];
  const failed = new Map<string, Error>();
  const loaded = await completeLight(tx, light);
  for (const msg of loaded) {
    const plan = plans.get(msg.runId);
    try {
      if (!plan) throw new Error(`no plan for run ${msg.runId}`);
      ready.push(prepare(maxDepth, msg, plan));
    } catch (err) {
      failed.set(msg.id, err instanceof Error ? err : new Error(String(err)));
    }
  }
  await reopenFailed(tx, [...failed.keys()]);
  const heavyDone = await completeHeavy(tx, heavy.map((p) => p.msg.id));
  ready.push(...heavy.filter((p) => heavyDone.has(p.msg.id)));

  const children: ChildRow[] = [];
  const leaves: { id: string; runId: string; value: unknown }[] = [];
  const parked: ParkedOutput[] = [];
  const branchEnds = new Set<string>();
  const emit = (p: Prepared, msg: Claimed, items: Item[], idFor: (channel: string, i: number) => string) => {
    const kids = routeItems(p.plan, msg, items, idFor);
    const out = (p.plan.routes.get(p.member.id) ?? []).length === 0 ? leafOutput(items) : undefined;
    // `approval: 'required'`: the output waits for a person (approvals/park.ts), nothing is published.
    if (p.member.approval === 'required') return void parked.push({ msg, plan: p.plan, memberId: p.member.id, children: kids, leaf: out });
    // A loop, not push(...kids): a 200,000-way split would overflow the call stack with arguments.
    for (const kid of kids) children.push(kid);
    if (kids.length === 0) branchEnds.add(msg.runId);
    if (out) leaves.push({ id: msg.id, runId: msg.runId, value: out.value });
  };
  for (const p of ready) {
    if (p.items) emit(p, p.msg, p.items, (channel, i) => messageId(p.msg.runId, p.msg.id, channel, i));
  }
  const arrivals = ready.flatMap((p) => (p.member.kind === 'combine' ? [{ msg: p.msg, member: p.member }] : []));
  if (arrivals.length > 0) {
    const byId = new Map(ready.map((p) => [p.msg.id, p]));
    for (const f of await runJoins(tx, arrivals)) {
      const p = byId.get(f.msg.id);
      if (p) emit(p, f.msg, [f.item], (channel, i) => joinOutputId(f.msg.runId, p.member.id, f.key, channel, i));
    }
  }
  await parkForApproval(tx, parked);
  const inserted = children.length === 0 ? [] : await insertChildren(tx, children);
  if (leaves.length > 0) await writeLeaves(tx, leaves);
  const runIds = [...new Set(ready.map((p) => p.msg.runId))].sort();
  if (shouldTouch(runIds)) await touchRuns(tx, runIds);
  const busy = new Set(inserted.map((c) => c.run_id));
  const handled = new Set([...loaded.map((m) => m.id), ...heavyDone]);
  return { children: inserted, quiet: runIds.filter((id) => !busy.has(id) && branchEnds.has(id)), handled, failed };
}

/** Inserts children (an existing id inserts nothing) and returns the ones that are new. */
export async function insertChildren(tx: Queryable, children: ChildRow[]): Promise<ChildRow[]> {
  const fresh = await rows<{ id: string }>(
    tx,
    sql`insert into messages (id, run_id, member, pool, channel, seq, parent_id, depth, frames, void, payload)
        select id, run_id, member, pool, channel, seq, parent_id, depth, frames, void, payload
          from json_to_recordset(${JSON.stringify(children)}::json)
               as x(id text, run_id text, member text, pool text, channel text, seq int, parent_id text,
                    depth int, frames jsonb, void boolean, payload jsonb)
        on conflict (id) do nothing
        returning id`,
  );
  if (fresh.length === children.length) return children;
  const ids = new Set(fresh.map((r) => r.id));
  return children.filter((c) => ids.has(c.id));
}

/** Records what leaf members produced on their messages, and the last of them as the run's output. */
export async function writeLeaves(tx: Queryable, leaves: { id: string; runId: string; value: unknown }[]): Promise<void> {
  const list = JSON.stringify(leaves.map((l) => ({ id: l.id, output: l.value })));
  await tx.execute(
    sql`update messages m set output = x.output
          from json_to_recordset(${list}::json) as x(id text, output jsonb)
         where m.id = x.id`,
  );
  const lastPerRun = JSON.stringify([...new Map(leaves.map((l) => [l.runId, l.value]))].map(([id, output]) => ({ id, output })));
  await tx.execute(
    sql`update runs r set output = x.output
          from json_to_recordset(${lastPerRun}::json) as x(id text, output jsonb)
         where r.id = x.id`,
  );
}

const lastTouch = new Map<string, number>();

/** True when some run was not touched by this process within the last second. */
function shouldTouch(runIds: readonly string[]): boolean {
  const now = Date.now();
  if (lastTouch.size > 10_000) for (const [id, at] of lastTouch) if (now - at > 10_000) lastTouch.delete(id);
  let due = false;
  for (const id of runIds) {
    if (now - (lastTouch.get(id) ?? 0) >= 1000) {
      lastTouch.set(id, now);
      due = true;
    }
  }
  return due;
}

/**
 * Records movement for the stall detector, at most about once a second per run: every batch
 * would otherwise queue on the same run row. A stalled run that moves again is running again.
 */
async function touchRuns(tx: Queryable, runIds: string[]): Promise<void> {
  await tx.execute(
    sql`update runs set moved_at = now(),
               status = case when status = 'stalled' then 'running' else status end,
               cause = case when status = 'stalled' then null else cause end,
               cause_member = case when status = 'stalled' then null else cause_member end,
               cause_message = case when status = 'stalled' then null else cause_message end
         where id = any(${textArray(runIds)})`,
  );
}
