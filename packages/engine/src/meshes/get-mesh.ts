/** Use case: one mesh with one of its versions (the latest unless asked). */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes, meshVersions } from '@trellis/db/schema/meshes';
import type { Mesh } from '@trellis/mesh/schema';
import { loadVersion } from '../plan/definition';

/** Which mesh: by id or by name; `version` defaults to the latest. */
export type GetMeshInput = ({ meshId: string } | { name: string }) & { version?: number };

/** A mesh version with the list of all versions. */
export interface MeshView {
  id: string;
  name: string;
  description: string | null;
  version: number;
  latestVersion: number;
  definition: Mesh;
  versions: { version: number; createdAt: Date; createdBy: string | null }[];
}

/** Returns the mesh version, or null when the mesh or that version does not exist. */
export async function getMesh(db: Db, input: GetMeshInput): Promise<MeshView | null> {
  const where = 'meshId' in input ? eq(meshes.id, input.meshId) : eq(meshes.name, input.name);
  const [mesh] = await db.select().from(meshes).where(where);
  if (!mesh) return null;
  const version = input.version ?? mesh.latestVersion;
  const definition = await loadVersion(db, mesh.id, version);
  if (!definition) return null;
  const versions = await db
    .select({ version: meshVersions.version, createdAt: meshVersions.createdAt, createdBy: meshVersions.createdBy })
    .from(meshVersions)
    .where(eq(meshVersions.meshId, mesh.id))
    .orderBy(asc(meshVersions.version));
  return {
    id: mesh.id,
    name: mesh.name,
    description: mesh.description,
    version,
    latestVersion: mesh.latestVersion,
    definition,
    versions,
  };
}
