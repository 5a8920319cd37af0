/**
 * Use case: a designer or an admin sets a mesh's priority default. Runs started while it is on are
 * urgent from their head message on (runs/start-run.ts, kernel/priority.ts); runs already going keep
 * their own flag (mark one with runs/mark-urgent.ts). Like `published`, the flag lives on the mesh
 * row, never in the mesh file, and every change is an audit entry in the same transaction.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';
import { appendAudit, type AuditActor } from '../audit/append';
import { MeshNotFoundError } from '../kernel/errors';

/**
 * Sets `meshes.urgent` and records `mesh.urgent` / `mesh.normal` (with the previous value).
 * @returns the mesh id, name and the flag now stored.
 * @throws MeshNotFoundError when `meshId` names no mesh.
 */
export async function setMeshUrgent(db: Db, input: { meshId: string; urgent: boolean; actor: AuditActor }): Promise<{ meshId: string; name: string; urgent: boolean }> {
  return db.transaction(async (tx) => {
    const [mesh] = await tx.select({ id: meshes.id, name: meshes.name, urgent: meshes.urgent }).from(meshes).where(eq(meshes.id, input.meshId)).for('update');
    if (!mesh) throw new MeshNotFoundError(input.meshId);
    await tx.update(meshes).set({ urgent: input.urgent, updatedAt: new Date() }).where(eq(meshes.id, mesh.id));
    await appendAudit(tx, { actor: input.actor, action: input.urgent ? 'mesh.urgent' : 'mesh.normal', target: mesh.id, detail: { name: mesh.name, before: mesh.urgent } });
    return { meshId: mesh.id, name: mesh.name, urgent: input.urgent };
  });
}
