/**
 * Use cases: a mesh's version history (who saved each version and when) and restoring an old version
 * as a new one. Versions are never rewritten: a restore saves the old file again through saveMesh,
 * so it gets the next number, its own author and time, and the same conflict check as any save.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@trellis/db/client';
import { MeshNotFoundError } from '../kernel/errors';
import { rows, timestamp } from '../kernel/sql';
import { loadVersion } from '../plan/definition';
import { saveMesh, type SaveMeshResult } from './save-mesh';

/** One saved version, as the history lists it. */
export interface MeshVersionItem {
  version: number;
  savedAt: Date;
  /** The person who saved it: their name, else their email, else the stored user id; null when unknown (a seed, the command line). */
  savedBy: string | null;
  /** Members and channels in that version's file. */
  members: number;
  channels: number;
}

const VersionRow = z.object({
  version: z.number(),
  saved_at: timestamp,
  saved_by: z.string().nullable(),
  members: z.number(),
  channels: z.number(),
});

/** The mesh's versions, newest first; null when there is no mesh with that id. */
export async function listMeshVersions(db: Db, meshId: string): Promise<MeshVersionItem[] | null> {
  const [mesh] = await rows(db, sql`select id from meshes where id = ${meshId}`, z.object({ id: z.string() }));
  if (!mesh) return null;
  const list = await rows(
    db,
    sql`select v.version, v.created_at as saved_at, coalesce(u.name, u.email, v.created_by) as saved_by,
               coalesce(jsonb_array_length(v.definition -> 'members'), 0)::int as members,
               coalesce(jsonb_array_length(v.definition -> 'channels'), 0)::int as channels
          from mesh_versions v left join users u on u.id = v.created_by
         where v.mesh_id = ${meshId} order by v.version desc`,
    VersionRow,
  );
  return list.map((r) => ({ version: r.version, savedAt: new Date(r.saved_at), savedBy: r.saved_by, members: r.members, channels: r.channels }));
}

/** What to restore: version `version` of mesh `meshId`, on top of `baseVersion` (the latest the person saw). */
export interface RestoreInput {
  meshId: string;
  version: number;
  baseVersion: number;
  userId?: string;
}

/**
 * Saves version `version`'s file again as the next version. A `baseVersion` older than the latest is
 * refused as a conflict (someone saved meanwhile); restoring a file equal to the latest saves nothing
 * (`unchanged`).
 * @throws MeshNotFoundError when the mesh or that version does not exist.
 */
export async function restoreMeshVersion(db: Db, input: RestoreInput): Promise<SaveMeshResult> {
  const definition = await loadVersion(db, input.meshId, input.version);
  if (!definition) throw new MeshNotFoundError(`${input.meshId} version ${input.version}`);
  return saveMesh(db, { meshId: input.meshId, baseVersion: input.baseVersion, definition, ...(input.userId ? { userId: input.userId } : {}) });
}
