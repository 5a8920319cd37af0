/**
 * Working out a re-open without changing anything: which runs can be re-opened, on which version,
 * which of their messages go out again, and why the others are refused. Shared by the preview (the
 * confirmation a person sees) and the re-open itself (runs/reopen-run.ts).
 */
import { z } from 'zod';
import { MESSAGE_STATUSES, RUN_STATUSES, type MessageStatus } from '@trellis/db/schema/statuses';
import { sql } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { hasErrors } from '@trellis/mesh/findings';
import { validateMesh } from '@trellis/mesh/validate';
import { EngineError } from '../kernel/errors';
import { compilePlan, type Plan } from '../plan/plan';
import { loadVersion, nestedResolver } from '../plan/definition';
import { knownTools } from '../tools/known-tools';
import { rows, textArray } from '../kernel/sql';

/** Which mesh version a re-open runs on: the run's own (pinned) one or the latest saved one. */
export type VersionChoice = 'pinned' | 'latest';

/** Message states a re-open re-publishes; `done` and `parked` are left as they are. */
export const REPUBLISH = ['dead', 'lost', 'cancelled', 'pending', 'running'] as const satisfies readonly MessageStatus[];
/** Of those, the states whose row goes back to `pending` (the others are still open). */
export const FINISHED: readonly MessageStatus[] = ['dead', 'lost', 'cancelled'];

/** A run re-open would not touch, and why in plain words. */
export class ReopenRefusedError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(
    readonly runId: string,
    reason: string,
  ) {
    super('reopen_refused', `run ${runId} cannot be re-opened: ${reason}`);
  }
}

/** What re-opening one run would do (or did). */
export interface ReopenItem {
  runId: string;
  meshId: string;
  meshName: string;
  /** The run's state before the re-open: `failed` or `stalled`. */
  status: string;
  cause: string | null;
  fromVersion: number;
  toVersion: number;
  /** The failed step: the member the run's cause names (null when the cause names none). */
  failedMember: string | null;
  /** Members whose unfinished messages are re-published, the failed member first. */
  members: string[];
  /** Messages re-published. */
  messages: number;
  /** Messages re-published per member. */
  messagesByMember: Record<string, number>;
}

/** A run that will not be (or was not) re-opened. */
export interface ReopenRefusal {
  runId: string;
  reason: string;
}

/** The confirmation a person sees before a re-open: how many runs and from which member(s). */
export interface ReopenPreview {
  version: VersionChoice;
  items: ReopenItem[];
  refused: ReopenRefusal[];
  /** Runs that would be re-opened. */
  runs: number;
  /** Per member: runs and messages re-published from it, failed steps first, then most runs. */
  members: { member: string; runs: number; messages: number; failedIn: number }[];
  /** One sentence: "Re-open 3 runs from member words on the latest saved version (v4)." */
  summary: string;
}


export const RunRow = z.object({
  id: z.string(),
  mesh_id: z.string(),
  mesh_name: z.string(),
  mesh_version: z.number(),
  status: z.enum(RUN_STATUSES),
  cause: z.string().nullable(),
  cause_member: z.string().nullable(),
  cause_message: z.string().nullable(),
  latest_version: z.number().nullable(),
  pruned: z.boolean(),
});
export type RunRow = z.output<typeof RunRow>;

export interface Pending {
  item: ReopenItem;
  run: RunRow;
  plan: Plan;
  ids: { id: string; member: string; status: MessageStatus; pool: string }[];
}

/** Most runs one re-open takes. */
export const MAX_RUNS = 1000;
/**
 * Reads the runs and their unfinished messages and splits them into what would be re-opened and
 * what is refused (with the reason).
 * @throws Error when `runIds` is empty or too long, or `version` is neither pinned nor latest.
 */
export async function planReopen(db: Db, runIds: readonly string[], version: VersionChoice): Promise<{ pending: Pending[]; refused: ReopenRefusal[] }> {
  const ids = [...new Set(runIds)];
  if (ids.length === 0) throw new Error('runIds: expected at least one run id');
  if (ids.length > MAX_RUNS) throw new Error(`runIds: expected at most ${MAX_RUNS} run ids, got ${ids.length}`);
  if (version !== 'pinned' && version !== 'latest') throw new Error(`version: expected 'pinned' or 'latest', got ${String(version)}`);
  const found = await rows(
    db,
    sql`select r.id, r.mesh_id, r.mesh_name, r.mesh_version, r.status, r.cause, r.cause_member, r.cause_message,
               m.latest_version, r.pruned_at is not null as pruned
          from runs r left join meshes m on m.id = r.mesh_id
         where r.id = any(${textArray(ids)})`,
    RunRow,
  );
  const byId = new Map(found.map((r) => [r.id, r]));
  const open = await rows(
    db,
    sql`select id, run_id, member, status, pool from messages
         where run_id = any(${textArray(found.map((r) => r.id))}) and status = any(${textArray([...REPUBLISH])})
         order by run_id, created_at, id`,
    z.object({ id: z.string(), run_id: z.string(), member: z.string(), status: z.enum(MESSAGE_STATUSES), pool: z.string() }),
  );
  const messagesOf = new Map<string, Pending['ids']>();
  for (const m of open) {
    const list = messagesOf.get(m.run_id) ?? [];
    list.push(m);
    messagesOf.set(m.run_id, list);
  }
  const plans = new Map<string, Plan | string>();
  const pending: Pending[] = [];
  const refused: ReopenRefusal[] = [];
  for (const runId of ids) {
    const run = byId.get(runId);
    if (!run) {
      refused.push({ runId, reason: 'there is no such run' });
      continue;
    }
    if (run.status !== 'failed' && run.status !== 'stalled') {
      refused.push({ runId, reason: `it is ${run.status}; only failed or stalled runs can be re-opened` });
      continue;
    }
    if (run.pruned) {
      refused.push({ runId, reason: 'its trail was pruned by retention (TRELLIS_RETENTION_DEAD_DAYS)' });
      continue;
    }
    const list = messagesOf.get(runId) ?? [];
    if (list.length === 0) {
      refused.push({ runId, reason: `it has no unfinished message to re-publish (cause ${run.cause ?? 'none'}: nothing ran)` });
      continue;
    }
    if (run.latest_version === null) {
      refused.push({ runId, reason: `its mesh ${run.mesh_name} no longer exists` });
      continue;
    }
    const toVersion = version === 'latest' ? run.latest_version : run.mesh_version;
    const key = `${run.mesh_id}@${toVersion}`;
    if (!plans.has(key)) plans.set(key, await compileVersion(db, run.mesh_id, run.mesh_name, toVersion));
    const plan = plans.get(key);
    if (typeof plan === 'string' || plan === undefined) {
      refused.push({ runId, reason: plan ?? 'its mesh version could not be read' });
      continue;
    }
    const members = [...new Set(list.map((m) => m.member))].sort();
    const missing = members.filter((m) => !plan.members.has(m));
    if (missing.length > 0) {
      refused.push({
        runId,
        reason: `member ${missing.join(', ')} no longer exists in version ${toVersion} of mesh ${run.mesh_name}; re-open it on its own version (v${run.mesh_version}) or put the member back`,
      });
      continue;
    }
    pending.push({
      run,
      plan,
      ids: list,
      item: {
        runId,
        meshId: run.mesh_id,
        meshName: run.mesh_name,
        status: run.status,
        cause: run.cause,
        fromVersion: run.mesh_version,
        toVersion,
        failedMember: run.cause_member,
        members: failedFirst(members, run.cause_member),
        messages: list.length,
        messagesByMember: countBy(list.map((m) => m.member)),
      },
    });
  }
  return { pending, refused };
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** The member the cause names comes first: it is "the failed step" a person recognises. */
function failedFirst(members: string[], causeMember: string | null): string[] {
  if (!causeMember || !members.includes(causeMember)) return members;
  return [causeMember, ...members.filter((m) => m !== causeMember)];
}

/** The compiled version, or a sentence saying why it cannot run. */
async function compileVersion(db: Db, meshId: string, meshName: string, version: number): Promise<Plan | string> {
  const mesh = await loadVersion(db, meshId, version);
  if (!mesh) return `version ${version} of mesh ${meshName} does not exist`;
  const findings = validateMesh(mesh, await nestedResolver(db, mesh), await knownTools(db, mesh));
  if (hasErrors(findings)) {
    const first = findings.find((f) => f.severity === 'error');
    return `version ${version} of mesh ${meshName} cannot run: ${first?.message ?? 'it has errors'}`;
  }
  return compilePlan(mesh);
}
