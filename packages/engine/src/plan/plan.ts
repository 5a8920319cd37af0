/**
 * A mesh version compiled for execution: members by id, each member's outgoing routes with their
 * conditions parsed once, and the pool every member runs on. Cached per `meshId@version`, which
 * never changes once saved.
 */
import { z } from 'zod';
import { compileCondition } from '@trellis/mesh/condition';
import { joinsAcross } from '@trellis/mesh/join-paths';
import { channelName, type Member, type Mesh } from '@trellis/mesh/schema';
import type { Db } from '@trellis/db/client';
import { MeshNotFoundError } from '../kernel/errors';
import { loadVersion } from './definition';
import { sql } from 'drizzle-orm';
import { rows, textArray } from '../kernel/sql';

const RunVersionRow = z.object({ id: z.string(), mesh_id: z.string(), mesh_version: z.number() });

/** One outgoing channel of a member. */
export interface Route {
  channel: string;
  to: string;
  /** Pool of the receiving member. */
  pool: string;
  /** The `when` condition, or undefined when every output passes. */
  test?: (payload: unknown) => boolean;
  /** The condition's text, for the trail of a part it filters out. */
  when?: string;
  /**
   * The combines that join on the frame on top of what is sent here (mesh join-paths.ts): a part
   * this route's condition filters out is counted at them as skipped, unless another route the part
   * takes reaches them too.
   */
  joins: readonly string[];
}

/** A compiled mesh version. */
export interface Plan {
  mesh: Mesh;
  head: Member;
  members: ReadonlyMap<string, Member>;
  /** Outgoing routes by member id; a member with none is a leaf (its output is the run's output). */
  routes: ReadonlyMap<string, readonly Route[]>;
  /** Every pool the mesh uses. */
  pools: readonly string[];
}

/** Compiled plans by `meshId@version`. */
export type PlanCache = Map<string, Plan>;

/**
 * What loading plans needs of the engine (kernel/engine.ts `Engine` has it): the database and the
 * plan cache. Declared here so that plans do not import the engine that holds their cache.
 */
export interface PlanHost {
  readonly db: Db;
  readonly plans: PlanCache;
}

const MAX_CACHED = 200;

/** The pool a member runs on. */
export function poolOf(member: Member): string {
  return member.pool ?? 'default';
}

/**
 * Compiles a mesh the validator accepted.
 * @throws Error when it has no head, or a channel names a missing member or a bad condition.
 */
export function compilePlan(mesh: Mesh): Plan {
  const members = new Map(mesh.members.map((m) => [m.id, m]));
  const heads = mesh.members.filter((m) => m.head);
  const head = heads[0];
  if (!head || heads.length > 1) throw new Error(`mesh ${mesh.name} needs exactly one head member`);
  const routes = new Map<string, Route[]>(mesh.members.map((m) => [m.id, []]));
  const joins = joinsAcross(mesh);
  for (const ch of mesh.channels) {
    const to = members.get(ch.to);
    const list = routes.get(ch.from);
    if (!to || !list) throw new Error(`channel ${channelName(ch)} names a member that does not exist`);
    const route: Route = { channel: channelName(ch), to: to.id, pool: poolOf(to), joins: joins.get(channelName(ch)) ?? [] };
    if (ch.when !== undefined && ch.when.trim() !== '') {
      route.test = compileCondition(ch.when);
      route.when = ch.when;
    }
    list.push(route);
  }
  const pools = [...new Set(mesh.members.map(poolOf))];
  return { mesh, head, members, routes, pools };
}

/**
 * Loads and compiles a mesh version, from the cache when possible.
 * @throws MeshNotFoundError when the version does not exist.
 */
export async function loadPlan(engine: PlanHost, meshId: string, version: number): Promise<Plan> {
  const key = `${meshId}@${version}`;
  const cached = engine.plans.get(key);
  if (cached) return cached;
  const mesh = await loadVersion(engine.db, meshId, version);
  if (!mesh) throw new MeshNotFoundError(`${meshId} version ${version}`);
  const plan = compilePlan(mesh);
  if (engine.plans.size >= MAX_CACHED) {
    const oldest = engine.plans.keys().next();
    if (!oldest.done) engine.plans.delete(oldest.value);
  }
  engine.plans.set(key, plan);
  return plan;
}

/**
 * The compiled plans of the given runs. A re-open may move a run to the latest saved version, so the
 * run's version is read on every call (one primary-key lookup per batch); the compiled plans
 * themselves stay cached per `meshId@version`. Runs that do not exist are absent from the result.
 */
export async function plansForRuns(engine: PlanHost, runIds: readonly string[]): Promise<Map<string, Plan>> {
  const out = new Map<string, Plan>();
  if (runIds.length === 0) return out;
  const found = await rows(
    engine.db,
    sql`select id, mesh_id, mesh_version from runs where id = any(${textArray([...new Set(runIds)])})`,
    RunVersionRow,
  );
  for (const r of found) out.set(r.id, await loadPlan(engine, r.mesh_id, r.mesh_version));
  return out;
}
