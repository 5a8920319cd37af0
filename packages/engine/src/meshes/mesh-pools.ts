/** Use case: the worker pools a mesh version's members run on. */
import type { Engine } from '../kernel/engine';
import { loadPlan } from '../plan/plan';

/**
 * The pools of mesh `meshId` version `version`, as its compiled plan lists them.
 * @throws MeshNotFoundError when the version does not exist.
 */
export async function meshPools(engine: Engine, meshId: string, version: number): Promise<readonly string[]> {
  return (await loadPlan(engine, meshId, version)).pools;
}
