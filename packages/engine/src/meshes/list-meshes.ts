/** Use case: list saved meshes, newest change first. */
import { desc } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';

/** One mesh in a list. */
export interface MeshSummary {
  id: string;
  name: string;
  description: string | null;
  latestVersion: number;
  updatedAt: Date;
}

/** Every mesh, most recently changed first. */
export async function listMeshes(db: Db): Promise<MeshSummary[]> {
  return db
    .select({
      id: meshes.id,
      name: meshes.name,
      description: meshes.description,
      latestVersion: meshes.latestVersion,
      updatedAt: meshes.updatedAt,
    })
    .from(meshes)
    .orderBy(desc(meshes.updatedAt));
}
