/**
 * Use case: a designer or an admin publishes a mesh to other systems (an MCP tool and an A2A agent,
 * packages/entries) or withdraws it. The mesh file cannot publish itself: the flag lives on the mesh
 * row, and every change is an audit entry in the same transaction.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';
import { appendAudit, type AuditActor } from '../audit/append';
import { MeshNotFoundError } from '../kernel/errors';

/** Which mesh (id or name), on or off, and who decides. */
export interface SetPublishedInput {
  meshId?: string;
  meshName?: string;
  published: boolean;
  actor: AuditActor;
}

/**
 * Sets the flag and records `mesh.published` / `mesh.unpublished` (with the previous value).
 * @returns the mesh id, name and the flag now stored.
 * @throws MeshNotFoundError when neither the id nor the name names a mesh.
 */
export async function setMeshPublished(db: Db, input: SetPublishedInput): Promise<{ meshId: string; name: string; published: boolean }> {
  const where = input.meshId ? eq(meshes.id, input.meshId) : eq(meshes.name, input.meshName ?? '');
  return db.transaction(async (tx) => {
    const [mesh] = await tx.select({ id: meshes.id, name: meshes.name, published: meshes.published }).from(meshes).where(where).for('update');
    if (!mesh) throw new MeshNotFoundError(input.meshId ?? input.meshName ?? '(none given)');
    await tx.update(meshes).set({ published: input.published, updatedAt: new Date() }).where(eq(meshes.id, mesh.id));
    await appendAudit(tx, {
      actor: input.actor,
      action: input.published ? 'mesh.published' : 'mesh.unpublished',
      target: mesh.id,
      detail: { name: mesh.name, before: mesh.published },
    });
    return { meshId: mesh.id, name: mesh.name, published: input.published };
  });
}
