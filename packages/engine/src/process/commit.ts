/**
 * The transaction at the heart of delivery: complete the parents, run the joins, insert every
 * child, record leaf outputs, note movement. Set-based: a handful of statements per batch,
 * whatever its size. The caller adds the children's jobs after commit (the rows are the outbox).
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Member } from '@trellis/mesh/schema';
import { StepError } from '../kernel/errors';
import { packFrames, type Frame, type Item } from '../plan/frames';
import type { Plan } from '../plan/plan';
import { joinMember, kindOf, laneOf } from '../members/index';
import { filteredId, joinOutputId, messageId } from '../kernel/ids';
import { msgStatus, runStatus } from '../kernel/statuses';
import { IdRow, rows, textArray, type Queryable } from '../kernel/sql';
import type { Engine } from '../kernel/engine';
import { completeHeavy, completeLight, reopenFailed, type ClaimedHeavy } from './claim';
import type { Lease } from './lease';
import { runJoins, type Arrival } from './join';
import { leafOutput, routeItems, type Dropped } from './route';
import type { ChildRow, Claimed } from './types';
import { parkForApproval, type ParkedOutput } from '../lifecycle/park-approval';
import { recordEvents } from '../events/outbox';
import { clearStalled } from '../lifecycle/clear-stalled';
import { countRunMessages, guardItems } from '../security/output-guard';
import type { RunEndActions } from '../members/types';
import type { InlineLane } from './inline-lane';

const TouchedRow = z.object({ id: z.string(), was: z.string() });

/** One step's timing, for trellis_step_duration_seconds and its trace span (process/stats.ts). */
export interface StepTiming {
  msg: Claimed;
  kind: string;
  /** When the step started, ms since the epoch. */
  startedAt: number;
  seconds: number;
}

/** A message ready to commit: non-combine members carry their outputs already. */
export interface Prepared {
  msg: Claimed;
  plan: Plan;
  member: Member;
  items?: Item[];
  /** For a heavy message: the fencing token of the lease it ran under (null for a parked one continuing). */
  leaseToken?: string | null;
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
  /** The light steps this commit ran: when each started (ms since the epoch) and how long it took (seconds). */
  steps: StepTiming[];
  /** Waits of the joins this commit fired (seconds; trellis_join_wait_seconds). */
  joinWaits: number[];
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
 * Runs a light member (a join-lane member only gets its member resolved; the join runs in the transaction).
 * @throws StepError from the depth check or the member's own failure.
 */
export function prepare(maxDepth: number, msg: Claimed, plan: Plan): Prepared {
  const member = memberFor(maxDepth, msg, plan);
  if (laneOf(member) === 'join') return { msg, plan, member };
  return { msg, plan, member, items: guardItems(member.id, kindOf(member).execute(member, msg)) };
}

/**
 * Runs a heavy member, which may take long, through its kind's `executeHeavy` (members/index.ts),
 * before the commit transaction opens; a kind without one runs `execute` (a void passing through).
 * `lease` is the delivery's lease (process/lease.ts): its signal stops the step, its guard runs
 * before each outside effect.
 * @throws StepError (`timed_out` when the deadline passes, or the runner's own cause); the lease's
 *   abort reason (LeaseLostError, RunEndedError) when the delivery was stopped.
 */
export async function prepareHeavy(engine: Engine, msg: ClaimedHeavy, plan: Plan, lease: Lease): Promise<Prepared> {
  const member = memberFor(engine.config.maxDepth, msg, plan);
  const base = { msg, plan, member, leaseToken: msg.leaseToken };
  const kind = kindOf(member);
  if (!kind.executeHeavy) return { ...base, items: guardItems(member.id, kind.execute(member, msg)) };
  const run = { engine, messageId: msg.id, runId: msg.runId, meshId: msg.meshId, meshVersion: msg.meshVersion, signal: lease.signal, guard: () => lease.guard() };
  return { ...base, items: guardItems(member.id, await kind.executeHeavy(run, member, msg)) };
}

/**
 * The transaction body; `plans` must hold the plan of every light message's run. With `inline`,
 * the light children that lane takes are inserted under its lease (process/inline-lane.ts).
 */
export async function commit(
  tx: Queryable,
  light: readonly string[],
  heavy: readonly Prepared[],
  plans: ReadonlyMap<string, Plan>,
  maxDepth: number,
  failRun: RunEndActions['failRun'],
  inline?: Pick<InlineLane, 'mark'>,
): Promise<CommitResult> {
  const ready: Prepared[] = [];
  const failed = new Map<string, Error>();
  const loaded = await completeLight(tx, light);
  const steps: StepTiming[] = [];
  for (const msg of loaded) {
    const plan = plans.get(msg.runId);
    const started = performance.now();
    try {
      if (!plan) throw new Error(`no plan for run ${msg.runId}`);
      const p = prepare(maxDepth, msg, plan);
      ready.push(p);
      steps.push({ msg, kind: p.member.kind, startedAt: performance.timeOrigin + started, seconds: (performance.now() - started) / 1000 });
    } catch (err) {
      failed.set(msg.id, err instanceof Error ? err : new Error(String(err)));
    }
  }
  await reopenFailed(tx, [...failed.keys()]);
  const heavyDone = await completeHeavy(tx, heavy.map((p) => ({ id: p.msg.id, token: p.leaseToken ?? null })));
  ready.push(...heavy.filter((p) => heavyDone.has(p.msg.id)));

  const children: ChildRow[] = [];
  const leaves: { id: string; runId: string; value: unknown }[] = [];
  const parked: ParkedOutput[] = [];
  const filtered: FilteredRow[] = [];
  const branchEnds = new Set<string>();
  let arrivals: Arrival[] = [];
  const joinWaits: number[] = [];
  const emit = (plan: Plan, member: Member, msg: Claimed, items: Item[], idFor: (channel: string, i: number) => string) => {
    const { children: kids, dropped } = routeItems(plan, msg, items, idFor);
    const out = (plan.routes.get(member.id) ?? []).length === 0 ? leafOutput(items) : undefined;
    // Parts routing dropped: on the trail as `filtered`, and skipped at the combines waiting for them.
    for (const d of dropped) {
      const row = filteredRow(msg, d);
      filtered.push(row);
      for (const c of d.combines) {
        const combine = joinMember(plan.members.get(c));
        if (!combine) continue;
        // Seen from the combine, the skipped part arrives as its trail row: a join it completes hangs its output there.
        arrivals.push({ msg: { ...msg, id: row.id, member: c, depth: row.depth, frames: d.item.frames, payload: null }, member: combine, skip: { partId: row.id } });
      }
    }
    // `approval: 'required'`: the output waits for a person (lifecycle/park-approval.ts), nothing is published.
    if (member.approval === 'required') return void parked.push({ msg, plan, memberId: member.id, children: kids, leaf: out });
    // A loop, not push(...kids): a 200,000-way split would overflow the call stack with arguments.
    for (const kid of kids) children.push(kid);
    if (kids.length === 0) branchEnds.add(msg.runId);
    if (out) leaves.push({ id: msg.id, runId: msg.runId, value: out.value });
  };
  for (const p of ready) {
    if (p.items) emit(p.plan, p.member, p.msg, p.items, (channel, i) => messageId(p.msg.runId, p.msg.id, channel, i));
    else {
      const combine = joinMember(p.member);
      if (combine) arrivals.push({ msg: p.msg, member: combine });
    }
  }
  // A fired join's output may itself be filtered on its way to an outer combine, whose skip may fire
  // that one in turn: repeat until no part is left to count.
  while (arrivals.length > 0) {
    const batch = arrivals;
    arrivals = [];
    for (const f of await runJoins(tx, batch)) {
      if (f.waitedSeconds !== undefined) joinWaits.push(f.waitedSeconds);
      const plan = plans.get(f.msg.runId);
      if (plan) emit(plan, f.member, f.msg, [f.item], (channel, i) => joinOutputId(f.msg.runId, f.member.id, f.key, channel, i));
    }
  }
  if (filtered.length > 0) await insertFiltered(tx, filtered);
  await parkForApproval(tx, parked);
  const counted = await countRunMessages(tx, children, failRun);
  inline?.mark(counted, plans);
  const inserted = counted.length === 0 ? [] : await insertChildren(tx, counted);
  if (leaves.length > 0) await writeLeaves(tx, leaves);
  const runIds = [...new Set(ready.map((p) => p.msg.runId))].sort();
  if (shouldTouch(runIds)) await touchRuns(tx, runIds);
  const busy = new Set(inserted.map((c) => c.run_id));
  const handled = new Set([...loaded.map((m) => m.id), ...heavyDone]);
  return { children: inserted, quiet: runIds.filter((id) => !busy.has(id) && branchEnds.has(id)), handled, failed, steps, joinWaits };
}

/**
 * Inserts children (an existing id inserts nothing) and returns the ones that are new. A child with
 * `lease_owner` is inserted leased to it for `lease_ms` (an inline child).
 */
export async function insertChildren(tx: Queryable, children: ChildRow[]): Promise<ChildRow[]> {
  const fresh = await rows(
    tx,
    sql`insert into messages (id, run_id, member, pool, channel, seq, parent_id, depth, frames, void, payload, lease_owner, lease_until)
        select id, run_id, member, pool, channel, seq, parent_id, depth, frames, void, payload, lease_owner,
               case when lease_owner is null then null else now() + make_interval(secs => lease_ms / 1000.0) end
          from json_to_recordset(${JSON.stringify(children.map((c) => ({ ...c, frames: packFrames(c.frames) })))}::json)
               as x(id text, run_id text, member text, pool text, channel text, seq int, parent_id text,
                    depth int, frames jsonb, void boolean, payload jsonb, lease_owner text, lease_ms int)
        on conflict (id) do nothing
        returning id`,
    IdRow,
  );
  if (fresh.length === children.length) return children;
  const ids = new Set(fresh.map((r) => r.id));
  return children.filter((c) => ids.has(c.id));
}

/** A `filtered` trail row: a part routing dropped (process/route.ts `Dropped`). */
export interface FilteredRow {
  id: string;
  run_id: string;
  member: string;
  pool: string;
  seq: number;
  parent_id: string;
  depth: number;
  frames: Frame[];
  payload: unknown;
  error: string;
}

/** The trail row of a dropped part of `msg`, under a deterministic id (see ids.ts `filteredId`). */
function filteredRow(msg: Claimed, d: Dropped): FilteredRow {
  return {
    id: filteredId(msg.runId, msg.id, d.index),
    run_id: msg.runId,
    member: msg.member,
    pool: msg.pool,
    seq: d.index,
    parent_id: msg.id,
    depth: msg.depth + 1,
    frames: d.item.frames,
    payload: d.item.payload,
    error: d.reason,
  };
}

/** Writes `filtered` trail rows; an existing id writes nothing (a replayed commit). */
async function insertFiltered(tx: Queryable, list: FilteredRow[]): Promise<void> {
  await tx.execute(
    sql`insert into messages (id, run_id, member, pool, seq, parent_id, depth, frames, payload, status, error, finished_at)
        select id, run_id, member, pool, seq, parent_id, depth, frames, payload, ${msgStatus('filtered')}, error, now()
          from json_to_recordset(${JSON.stringify(list.map((r) => ({ ...r, frames: packFrames(r.frames) })))}::json)
               as x(id text, run_id text, member text, pool text, seq int, parent_id text, depth int, frames jsonb, payload jsonb, error text)
        on conflict (id) do nothing`,
  );
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
 * would otherwise queue on the same run row. A stalled run that moves again is running again, and
 * its Action Center item learns it (lifecycle/clear-stalled.ts).
 */
async function touchRuns(tx: Queryable, runIds: string[]): Promise<void> {
  const moved = await rows(
    tx,
    sql`with prev as (select id, status from runs where id = any(${textArray(runIds)}) order by id for update)
        update runs r set moved_at = now(),
               status = case when prev.status = ${runStatus('stalled')} then ${runStatus('running')} else r.status end,
               cause = case when prev.status = ${runStatus('stalled')} then null else r.cause end,
               cause_member = case when prev.status = ${runStatus('stalled')} then null else r.cause_member end,
               cause_message = case when prev.status = ${runStatus('stalled')} then null else r.cause_message end
          from prev
         where r.id = prev.id
     returning r.id, prev.status as was`,
    TouchedRow,
  );
  const unstalled = moved.filter((m) => m.was === 'stalled').map((m) => m.id);
  if (unstalled.length > 0) {
    await recordEvents(tx, unstalled.map((runId) => ({ kind: 'run.status' as const, runId, status: 'running' })));
    await clearStalled(tx, unstalled);
  }
}
