/** The refusal for a mesh id that names no mesh, telling a caller who gave a name instead. */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';
import { MeshNotFoundError } from '../kernel/errors';

/**
 * The error for `id`, looked up as an id and found nothing. When a mesh has `id` as its name, the
 * message says that mesh paths take the id and gives it (e.g. `POST /api/v1/meshes/word-split/runs`).
 * One indexed read (names are unique).
 */
export async function meshIdNotFound(db: Db, id: string): Promise<MeshNotFoundError> {
  const [named] = await db.select({ id: meshes.id }).from(meshes).where(eq(meshes.name, id)).limit(1);
  if (!named) return new MeshNotFoundError(id);
  return new MeshNotFoundError(`with id ${id}`, `mesh paths take the mesh id; ${id} is a mesh name: its id is ${named.id}`);
}
