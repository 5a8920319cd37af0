/**
 * The assistant's questions, one SQL query each. The built-in intent matcher and a configured
 * model (through tool calls) both answer only from these; nothing here is written by a model.
 * Every figure an answer shows comes from one of these results.
 */
import { admissionLine, storedAdmission } from '../runs/admission-verdict';
import type { MessageStatus } from '@trellis/db/schema/statuses';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { causeInfo, isCause } from '@trellis/mesh/causes';
import { rows, textArray, type Queryable, timestamp } from '../kernel/sql';
import { approvalStatus, msgStatus, msgStatuses, runStatus, runStatuses } from '../kernel/statuses';

/** Start of today (UTC midnight) for `now`. */
export function startOfTodayUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** One mesh and cause among the runs that failed or stalled since a moment. */
export interface FailureGroup {
  meshName: string;
  cause: string;
  severity: string;
  /** Runs in the group. */
  runs: number;
  /** Members the cause names, most frequent first. */
  members: string[];
  /** The newest run's sentence. */
  sentence: string | null;
  lastAt: Date;
  /** Up to three run ids, newest first. */
  sampleRunIds: string[];
}

/**
 * Runs that failed or stalled since `since` (default: today, UTC), grouped by mesh and cause,
 * largest group first. A run counts where it ended (`ended_at`), a stalled one where it last moved.
 */
export async function failuresSince(db: Queryable, since: Date = startOfTodayUtc()): Promise<FailureGroup[]> {
  const found = await rows(
    db,
    sql`select mesh_name, coalesce(cause, status) as cause, count(*)::int as runs,
               array_remove(array_agg(distinct cause_member), null) as members,
               (array_agg(cause_message order by coalesce(ended_at, moved_at) desc))[1] as sentence,
               max(coalesce(ended_at, moved_at))::text as last_at,
               (array_agg(id order by coalesce(ended_at, moved_at) desc))[1:3] as samples
          from runs
         where status in ${runStatuses('failed', 'stalled')} and coalesce(ended_at, moved_at) >= ${since.toISOString()}::timestamptz
         group by mesh_name, coalesce(cause, status)
         order by count(*) desc, mesh_name, 2`,
    z.object({ mesh_name: z.string(), cause: z.string(), runs: z.number(), members: z.array(z.string()).nullable(), sentence: z.string().nullable(), last_at: z.string(), samples: z.array(z.string()) }),
  );
  return found.map((r) => ({
    meshName: r.mesh_name,
    cause: r.cause,
    severity: isCause(r.cause) ? causeInfo(r.cause).severity : 'unknown',
    runs: r.runs,
    members: r.members ?? [],
    sentence: r.sentence,
    lastAt: new Date(r.last_at),
    sampleRunIds: r.samples,
  }));
}

/** A message of a failed run that did not finish: dead-lettered or lost, with its own reason. */
export const BrokenMessage = z.object({
  id: z.string(),
  member: z.string(),
  status: z.enum(['dead', 'lost'] as const satisfies readonly MessageStatus[]),
  attempts: z.number(),
  error: z.string().nullable(),
});
/** A dead-lettered or lost message of a failed run. */
export type BrokenMessage = z.output<typeof BrokenMessage>;

/** Why a run failed: its cause, member, sentence, and its dead-lettered and lost messages. */
export interface RunFailure {
  runId: string;
  meshName: string;
  meshVersion: number;
  status: string;
  cause: string | null;
  causeMember: string | null;
  sentence: string | null;
  /** Dead-lettered and lost messages (up to 20, oldest first). */
  broken: BrokenMessage[];
  dead: number;
  lost: number;
  /** Its admission in words (runs/admission-verdict.ts): what it waits for, how long it waited, or the cap that refused it; null when it ran at once. */
  admission: string | null;
}

/** Why run `runId` failed (or that it did not, or why it waits), or null when there is no such run. */
export async function whyRunFailed(db: Queryable, runId: string): Promise<RunFailure | null> {
  const [r] = await rows(
    db,
    sql`select r.id, r.mesh_name, r.mesh_version, r.status, r.cause, r.cause_member, r.cause_message, r.admission,
               (select count(*)::int from messages m where m.run_id = r.id and m.status = ${msgStatus('dead')}) as dead,
               (select count(*)::int from messages m where m.run_id = r.id and m.status = ${msgStatus('lost')}) as lost,
               (select json_agg(json_build_object('id', b.id, 'member', b.member, 'status', b.status, 'attempts', b.attempts, 'error', b.error))
                  from (select id, member, status, attempts, error from messages m
                         where m.run_id = r.id and m.status in ${msgStatuses('dead', 'lost')} order by created_at, id limit 20) b) as broken
          from runs r where r.id = ${runId}`,
    z.object({
      id: z.string(),
      mesh_name: z.string(),
      mesh_version: z.number(),
      status: z.string(),
      cause: z.string().nullable(),
      cause_member: z.string().nullable(),
      cause_message: z.string().nullable(),
      admission: z.unknown(),
      dead: z.number(),
      lost: z.number(),
      broken: z.array(BrokenMessage).nullable(),
    }),
  );
  if (!r) return null;
  return {
    runId: r.id,
    meshName: r.mesh_name,
    meshVersion: r.mesh_version,
    status: r.status,
    cause: r.cause,
    causeMember: r.cause_member,
    sentence: r.cause_message,
    broken: r.broken ?? [],
    dead: r.dead,
    lost: r.lost,
    admission: admissionLine(storedAdmission(r.admission)),
  };
}

/** A stalled run. */
export interface StalledRun {
  runId: string;
  meshName: string;
  member: string | null;
  sentence: string | null;
  /** Last movement. */
  movedAt: Date;
  /** Messages still open (pending, running or parked). */
  open: number;
}

/** Runs flagged stalled right now, the longest-quiet first (at most 50). */
export async function stalledRuns(db: Queryable): Promise<StalledRun[]> {
  const found = await rows(
    db,
    sql`select r.id, r.mesh_name, r.cause_member, r.cause_message, r.moved_at::text as moved_at,
               (select count(*)::int from messages m where m.run_id = r.id and m.status in ${msgStatuses('pending', 'running', 'parked')}) as open
          from runs r where r.status = ${runStatus('stalled')} order by r.moved_at limit 50`,
    z.object({ id: z.string(), mesh_name: z.string(), cause_member: z.string().nullable(), cause_message: z.string().nullable(), moved_at: z.string(), open: z.number() }),
  );
  return found.map((r) => ({ runId: r.id, meshName: r.mesh_name, member: r.cause_member, sentence: r.cause_message, movedAt: new Date(r.moved_at), open: r.open }));
}

/** Lost messages of one mesh and member. */
export interface LostGroup {
  meshName: string;
  member: string;
  messages: number;
  runs: number;
  lastAt: Date;
}

/** Messages declared lost since `since` (default today, UTC), by mesh and member. */
export async function lostMessagesSince(db: Queryable, since: Date = startOfTodayUtc()): Promise<LostGroup[]> {
  const found = await rows(
    db,
    sql`select r.mesh_name, m.member, count(*)::int as messages, count(distinct m.run_id)::int as runs,
               max(coalesce(m.finished_at, m.created_at))::text as last_at
          from messages m join runs r on r.id = m.run_id
         where m.status = ${msgStatus('lost')} and coalesce(m.finished_at, m.created_at) >= ${since.toISOString()}::timestamptz
         group by r.mesh_name, m.member
         order by count(*) desc, r.mesh_name, m.member`,
    z.object({ mesh_name: z.string(), member: z.string(), messages: z.number(), runs: z.number(), last_at: z.string() }),
  );
  return found.map((r) => ({ meshName: r.mesh_name, member: r.member, messages: r.messages, runs: r.runs, lastAt: new Date(r.last_at) }));
}

/** Approval requests of one mesh and member still waiting for a person. */
export interface ApprovalGroup {
  meshName: string;
  member: string;
  waiting: number;
  oldestAt: Date;
}

/** Pending approval requests (the `approvals` table), by mesh and member, oldest first. */
export async function approvalsWaiting(db: Queryable): Promise<ApprovalGroup[]> {
  const found = await rows(
    db,
    sql`select mesh_name, coalesce(member_label, member) as member, count(*)::int as waiting, min(created_at)::text as oldest_at
          from approvals where status = ${approvalStatus('pending')}
         group by mesh_name, coalesce(member_label, member)
         order by min(created_at)`,
    z.object({ mesh_name: z.string(), member: z.string(), waiting: z.number(), oldest_at: z.string() }),
  );
  return found.map((r) => ({ meshName: r.mesh_name, member: r.member, waiting: r.waiting, oldestAt: new Date(r.oldest_at) }));
}

/** Failed or stalled runs a re-open could take: by mesh name and/or failed member, since a moment. */
export async function reopenableRunIds(
  db: Queryable,
  filter: { meshName?: string; member?: string; since?: Date; limit?: number },
): Promise<string[]> {
  const found = await rows(
    db,
    sql`select id from runs
         where status in ${runStatuses('failed', 'stalled')}
           and (${filter.meshName ?? null}::text is null or mesh_name = ${filter.meshName ?? null})
           and (${filter.member ?? null}::text is null or cause_member = ${filter.member ?? null})
           and coalesce(ended_at, moved_at) >= ${(filter.since ?? startOfTodayUtc()).toISOString()}::timestamptz
         order by coalesce(ended_at, moved_at) desc
         limit ${Math.min(Math.max(filter.limit ?? 1000, 1), 1000)}`,
    z.object({ id: z.string() }),
  );
  return found.map((r) => r.id);
}

/** A run a shortened reference matched. */
export interface RunMatch {
  runId: string;
  meshName: string;
  status: string;
  createdAt: Date;
}

/**
 * Runs whose id matches a shortened reference: a prefix (`01a22826`) or the `prefix…suffix` form
 * run lists show (`01a22826…1cf3`), newest first, at most `limit` (default 6, so a caller can say
 * "more than 5"). `ref` holds only hex digits, dashes and one "…" (intents.ts); anything else
 * matches nothing.
 */
export async function runsMatching(db: Queryable, ref: string, limit = 6): Promise<RunMatch[]> {
  const [prefix = '', suffix = ''] = ref.toLowerCase().split('…');
  if (!/^[0-9a-f-]+$/.test(prefix) || (suffix !== '' && !/^[0-9a-f-]+$/.test(suffix))) return [];
  const found = await rows(
    db,
    sql`select id, mesh_name, status, created_at from runs
         where id like ${`${prefix}%`} and id like ${`%${suffix}`}
         order by created_at desc, id
         limit ${Math.min(Math.max(limit, 1), 100)}`,
    z.object({ id: z.string(), mesh_name: z.string(), status: z.string(), created_at: timestamp }),
  );
  return found.map((r) => ({ runId: r.id, meshName: r.mesh_name, status: r.status, createdAt: new Date(r.created_at) }));
}

/** A run as a mark-urgent proposal sees it. */
export interface UrgentCandidate {
  runId: string;
  meshName: string;
  status: string;
  urgent: boolean;
}

/**
 * The runs a mark-urgent would take: those of `runIds` that exist, or, with `meshName` and no ids,
 * the open (queued, running or stalled) runs of that mesh, oldest first. At most `limit` (default
 * and most 500, runs/mark-urgent.ts `MARK_URGENT_MAX`).
 */
export async function urgentCandidates(db: Queryable, filter: { runIds?: readonly string[]; meshName?: string; limit?: number }): Promise<UrgentCandidate[]> {
  const limit = Math.min(Math.max(filter.limit ?? 500, 1), 500);
  const ids = filter.runIds ?? [];
  const found = await rows(
    db,
    ids.length > 0
      ? sql`select id, mesh_name, status, urgent from runs where id = any(${textArray(ids)}) order by created_at, id limit ${limit}`
      : sql`select id, mesh_name, status, urgent from runs
             where mesh_name = ${filter.meshName ?? ''} and status in ${runStatuses('queued', 'running', 'stalled')}
             order by created_at, id limit ${limit}`,
    z.object({ id: z.string(), mesh_name: z.string(), status: z.string(), urgent: z.boolean() }),
  );
  return found.map((r) => ({ runId: r.id, meshName: r.mesh_name, status: r.status, urgent: r.urgent }));
}
