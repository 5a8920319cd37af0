/**
 * Use case: re-open failed or stalled runs from the failed step.
 *
 * Messages already `done` stay done: their outputs (the children they published, the join parts
 * already stored) are reused and nothing before the failed step runs again. The messages that did
 * not finish (dead-lettered, lost, cancelled when the run ended, or still open in a stalled run) are
 * re-published under their own deterministic ids. A dead-lettered message's old job sits in BullMQ's
 * failed set (`removeOnFail` keeps it a week) and an add with the same job id would be a no-op, so
 * the old job is removed first, while the row is still dead and neither the relay nor a worker will
 * touch it; then one transaction sets the rows back to pending, moves the run to the chosen mesh
 * version and records the attempt; then the jobs are added (the relay re-adds any a crash loses).
 * Keyed joins need nothing: parts already in stay in, parts arriving again are absorbed by message
 * id, so each join still fires once with every part.
 */
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { runAttempts } from '@trellis/db/schema/run-attempts';
import { appendAuditBy } from '../audit/append';
import { enqueue } from '../kernel/queues';
import { publishUrgent } from '../kernel/priority';
import { recordEvents } from '../events/outbox';
import { poolOf } from '../plan/plan';
import { uuidv7 } from '../kernel/ids';
import type { Engine } from '../kernel/engine';
import { rows, textArray } from '../kernel/sql';
import { FINISHED, planReopen, REPUBLISH, ReopenRefusedError, type Pending, type ReopenItem, type ReopenPreview, type ReopenRefusal, type VersionChoice } from './reopen-plan';
import { msgStatus, runStatus } from '../kernel/statuses';

export { ReopenRefusedError, type ReopenItem, type ReopenPreview, type ReopenRefusal, type VersionChoice } from './reopen-plan';

/** A finished re-open. */
export interface ReopenResult {
  reopened: (ReopenItem & { attempt: number })[];
  refused: ReopenRefusal[];
}

/**
 * Works out what re-opening `runIds` on `version` would do, without changing anything.
 * @throws Error when `runIds` is empty or longer than 1,000.
 */
export async function previewReopen(db: Db, input: { runIds: readonly string[]; version: VersionChoice }): Promise<ReopenPreview> {
  const { pending, refused } = await planReopen(db, input.runIds, input.version);
  const items = pending.map((p) => p.item);
  return { version: input.version, items, refused, runs: items.length, members: byMember(items), summary: describeReopen(items, input.version) };
}

/**
 * Re-opens the runs from their failed step on the chosen version; runs that cannot be re-opened
 * are listed in `refused` with the reason, the others go ahead.
 * @throws Error when `runIds` is empty or longer than 1,000; RedisUnreachableError when the old
 *   jobs cannot be removed (nothing has changed then).
 */
export async function reopenRuns(
  engine: Engine,
  input: { runIds: readonly string[]; version: VersionChoice; userId?: string },
): Promise<ReopenResult> {
  const { pending, refused } = await planReopen(engine.db, input.runIds, input.version);
  const reopened: ReopenResult['reopened'] = [];
  for (const p of pending) {
    const finished = p.ids.filter((m) => FINISHED.includes(m.status));
    // Old jobs out first: a job id BullMQ still holds (in its failed set, or a waiting job of a
    // cancelled row) would turn the add below into a no-op.
    await removeJobs(engine, finished);
    const attempt = await engine.db.transaction(async (tx) => {
      const moved = await rows(
        tx,
        sql`update runs set status = ${runStatus('running')}, cause = null, cause_member = null, cause_message = null,
                   ended_at = null, moved_at = now(), mesh_version = ${p.item.toVersion}
             where id = ${p.run.id} and status = ${p.run.status} and mesh_version = ${p.run.mesh_version} and pruned_at is null
         returning id`,
        z.object({ id: z.string() }),
      );
      if (moved.length === 0) return undefined;
      // On BullMQ the rows are pending before their jobs are added (after this commits); their
      // created_at is old, so the relay would count them missing in between (and, past maxRequeues,
      // lost). A short hold (`lease_until`, no owner), as a commit gives its inline children, makes
      // the relay skip them until their jobs exist; if this process dies first, it lapses and the
      // relay adds them. The in-process bus has no job to wait for: no hold there.
      const holdSeconds = engine.localBus ? 0 : engine.config.inlineLeaseMs / 1000;
      await tx.execute(
        sql`update messages set status = case when status = any(${textArray(FINISHED)}) then ${msgStatus('pending')} else status end,
                   attempts = case when status = any(${textArray(FINISHED)}) then 0 else attempts end,
                   requeues = 0, error = null, finished_at = null,
                   lease_owner = case when status = any(${textArray(FINISHED)}) then null else lease_owner end,
                   lease_until = case when status = any(${textArray(FINISHED)})
                                      then case when ${holdSeconds}::float8 > 0 then now() + make_interval(secs => ${holdSeconds}) end
                                      else lease_until end
             where id = any(${textArray(p.ids.map((m) => m.id))}) and status = any(${textArray([...REPUBLISH])})`,
      );
      for (const [member, pool] of poolChanges(p)) {
        await tx.execute(sql`update messages set pool = ${pool} where run_id = ${p.run.id} and member = ${member} and status <> ${msgStatus('done')}`);
      }
      const [last] = await rows(tx, sql`select coalesce(max(attempt), 1)::int as n from run_attempts where run_id = ${p.run.id}`, z.object({ n: z.number() }));
      const next = (last?.n ?? 1) + 1;
      await tx.insert(runAttempts).values({
        id: uuidv7(),
        runId: p.run.id,
        attempt: next,
        versionChoice: input.version,
        meshVersion: p.item.toVersion,
        previousVersion: p.run.mesh_version,
        members: p.item.members,
        republished: p.ids.length,
        previousStatus: p.run.status,
        previousCause: p.run.cause,
        previousCauseMember: p.run.cause_member,
        previousCauseMessage: p.run.cause_message,
        createdBy: input.userId ?? null,
      });
      // Pages showing the run (run page, Runs tab, Action Center) refetch when this reaches them.
      await recordEvents(tx, [{ kind: 'run.status', runId: p.run.id, meshId: p.run.mesh_id, status: 'running' }]);
      await appendAuditBy(tx, input.userId, {
        action: 'run.reopen',
        target: p.run.id,
        detail: { attempt: next, version: input.version, meshVersion: p.item.toVersion, members: p.item.members },
      });
      return next;
    });
    if (attempt === undefined) {
      refused.push({ runId: p.run.id, reason: 'it changed while being re-opened (someone else re-opened it first)' });
      continue;
    }
    // An urgent run left the Redis mirror when it ended; back on it before its jobs are added.
    await publishUrgent(engine, [p.run.id]);
    await enqueue(
      engine,
      p.ids.map((m) => {
        const member = p.plan.members.get(m.member);
        return { pool: member ? poolOf(member) : m.pool, runId: p.run.id, messageId: m.id, member: m.member };
      }),
    );
    reopened.push({ ...p.item, attempt });
  }
  return { reopened, refused };
}

/**
 * Re-opens one run; the single-run form the CLI and the run page use.
 * @throws ReopenRefusedError naming why (not failed or stalled, member missing in the version, …).
 */
export async function reopenRun(
  engine: Engine,
  input: { runId: string; version: VersionChoice; userId?: string },
): Promise<ReopenItem & { attempt: number }> {
  const { reopened, refused } = await reopenRuns(engine, { runIds: [input.runId], ...input });
  const done = reopened[0];
  if (done) return done;
  throw new ReopenRefusedError(input.runId, refused[0]?.reason ?? 'unknown reason');
}

/**
 * One sentence for the confirmation: how many runs, from which member (the failed step; every
 * member with unfinished messages when no cause names one) and on which version, e.g.
 * "Re-open 2 runs from member words on the latest saved version (v3)."
 */
export function describeReopen(items: readonly ReopenItem[], version: VersionChoice): string {
  if (items.length === 0) return 'Nothing to re-open.';
  const all = byMember(items);
  const failed = all.filter((m) => m.failedIn > 0).map((m) => m.member);
  const members = failed.length > 0 ? failed : all.map((m) => m.member);
  const versions = [...new Set(items.map((i) => i.toVersion))].sort((a, b) => a - b);
  const runs = items.length === 1 ? '1 run' : `${items.length} runs`;
  const from = members.length === 1 ? `member ${members[0] ?? ''}` : `members ${members.join(', ')}`;
  const on = version === 'latest' ? 'the latest saved version' : "each run's own version";
  return `Re-open ${runs} from ${from} on ${on} (${versions.map((v) => `v${v}`).join(', ')}).`;
}

function byMember(items: readonly ReopenItem[]): ReopenPreview['members'] {
  const counts = new Map<string, { runs: number; messages: number; failedIn: number }>();
  for (const it of items) {
    for (const m of it.members) {
      const c = counts.get(m) ?? { runs: 0, messages: 0, failedIn: 0 };
      c.runs++;
      c.messages += it.messagesByMember[m] ?? 0;
      if (it.failedMember === m) c.failedIn++;
      counts.set(m, c);
    }
  }
  return [...counts]
    .map(([member, c]) => ({ member, ...c }))
    .sort((a, b) => b.failedIn - a.failedIn || b.runs - a.runs || a.member.localeCompare(b.member));
}

function poolChanges(p: Pending): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of p.ids) {
    const member = p.plan.members.get(m.member);
    if (member && poolOf(member) !== m.pool) out.set(m.member, poolOf(member));
  }
  return out;
}

async function removeJobs(engine: Engine, list: readonly { id: string; pool: string }[]): Promise<void> {
  // The in-process bus has no job besides the row; its enqueue makes the row a fresh job.
  if (engine.localBus) return;
  for (let i = 0; i < list.length; i += 200) {
    // A job may be in either lane of its pool (kernel/priority.ts).
    await Promise.all(list.slice(i, i + 200).flatMap((m) => [engine.queue(m.pool).remove(m.id), engine.queue(m.pool, 'urgent').remove(m.id)]));
  }
}

