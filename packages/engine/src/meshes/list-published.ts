/**
 * Use case: the meshes offered to other systems (published), each with what a caller needs to
 * describe it: its description and its head member, read from the latest saved version.
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { meshes } from '@trellis/db/schema/meshes';
import type { Member } from '@trellis/mesh/schema';
import { loadVersion } from '../plan/definition';

/** A published mesh as bridges present it. */
export interface PublishedMesh {
  id: string;
  name: string;
  description: string | null;
  latestVersion: number;
  /** The member that receives the run's input (null when the latest version has none: runs are refused). */
  head: { id: string; kind: Member['kind']; label: string | null; description: string | null; email: boolean } | null;
  /** The other members, for skills and tool descriptions: id, kind, label. */
  members: { id: string; kind: Member['kind']; label: string | null; description: string | null }[];
}

/** Published meshes by name (one when `name` is given; an unpublished or unknown name gives none). */
export async function listPublished(db: Db, name?: string): Promise<PublishedMesh[]> {
  const where = name === undefined ? eq(meshes.published, true) : eq(meshes.name, name);
  const rows = await db.select().from(meshes).where(where).orderBy(asc(meshes.name));
  const out: PublishedMesh[] = [];
  for (const mesh of rows.filter((m) => m.published)) {
    const definition = await loadVersion(db, mesh.id, mesh.latestVersion);
    const members = (definition?.members ?? []).map((m) => ({ id: m.id, kind: m.kind, label: m.label ?? null, description: m.description ?? null }));
    const head = definition?.members.find((m) => m.head === true);
    out.push({
      id: mesh.id,
      name: mesh.name,
      description: mesh.description ?? definition?.description ?? null,
      latestVersion: mesh.latestVersion,
      head: head
        ? {
            id: head.id,
            kind: head.kind,
            label: head.label ?? null,
            description: head.description ?? null,
            // A workflow whose first step parses email takes a raw RFC 5322 message as its text.
            email: head.kind === 'workflow' && head.steps[0]?.type === 'email',
          }
        : null,
      members,
    });
  }
  return out;
}
